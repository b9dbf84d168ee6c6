// `@resume/core/encryption`: keyrings and the record cipher every store seals with
// (docs/encryption.md). Stores import this subpath; it loads nothing of the engine.
export { EncryptionKeyUnavailableError } from '../spec/errors/encryption-key-unavailable-error.js';
export {
  createKeyring,
  DATA_KEY_BYTES,
  type DataKey,
  generateDataKey,
  isKeyring,
  type Keyring,
  type KeyringOptions,
  keyIdFor,
  parseDataKey,
  toKeyring,
} from './keyring.js';
export {
  isSealed,
  type OpenResult,
  openBytes,
  openSealed,
  type Sealed,
  type SealedPlace,
  sealBytes,
  sealWith,
} from './record-cipher.js';
export {
  blobName,
  blobPlace,
  derivedPlace,
  type EncryptReport,
  headerPlace,
  journalPlace,
  type Opened,
  openObject,
  openObjectOrDamage,
  sealedObjectJson,
  snapshotPlace,
} from './sealed-object.js';
