// `@resume/storage-postgres/testing`: a throw-away PostgreSQL cluster for tests and benchmarks.

export { type FreezableProxy, freezableProxy } from './freezable-proxy.js';
export {
  announceSkip,
  type ClusterOptions,
  dumpData,
  findPostgres,
  type PostgresAvailability,
  type PostgresCluster,
  startPostgresCluster,
} from './postgres-cluster.js';
