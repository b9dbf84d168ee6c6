// LangGraph's own `SqliteSaver` over Node's built-in SQLite (`node:sqlite`) instead of
// better-sqlite3: better-sqlite3 12.10 aborts the process under Node 24 here (a native
// assertion in its Statement destructor during garbage collection, reproducible with
// `SqliteSaver` alone). The saver sets WAL itself. `synchronous` says what a commit waits for:
// SqliteSaver as shipped runs on better-sqlite3, compiled with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1,
// so in WAL mode a `put` commits with synchronous=NORMAL (no fsync; the last commits can be
// lost at power loss). node:sqlite's default is FULL (an fsync per commit, like a checkpoint).
import { DatabaseSync } from 'node:sqlite';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';

export function sqliteSaverOnNodeSqlite(file, { synchronous }) {
  const database = new DatabaseSync(file);
  // better-sqlite3 binds `undefined` as NULL; node:sqlite refuses it.
  const bindable = (values) => values.map((value) => (value === undefined ? null : value));
  const connection = {
    pragma: (text) => database.prepare(`PRAGMA ${text}`).all(),
    exec: (sql) => database.exec(sql),
    // better-sqlite3's db.transaction(fn): a function that runs fn in one transaction.
    transaction:
      (fn) =>
      (...args) => {
        database.exec('BEGIN');
        try {
          const result = fn(...args);
          database.exec('COMMIT');
          return result;
        } catch (error) {
          database.exec('ROLLBACK');
          throw error;
        }
      },
    prepare: (sql) => {
      const statement = database.prepare(sql);
      return {
        run: (...values) => statement.run(...bindable(values)),
        get: (...values) => statement.get(...bindable(values)),
        all: (...values) => statement.all(...bindable(values)),
      };
    },
  };
  const saver = new SqliteSaver(connection);
  // The saver switches to WAL in setup() (idempotent); the commit mode is set after it.
  saver.setup();
  database.exec(`PRAGMA synchronous=${synchronous}`);
  return { saver, database };
}
