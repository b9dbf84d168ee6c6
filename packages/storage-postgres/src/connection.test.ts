import { UsageError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { isPostgresUrl, maskConnectionString } from './connection.js';
import { createPostgresStore } from './postgres-store.js';

describe('connection strings', () => {
  it('recognises PostgreSQL store URLs', () => {
    expect(isPostgresUrl('postgres://db/conclave')).toBe(true);
    expect(isPostgresUrl('PostgreSQL://user@db:5432/x')).toBe(true);
    expect(isPostgresUrl('/home/me/.conclave')).toBe(false);
    expect(isPostgresUrl('file:///home/me/.conclave')).toBe(false);
  });

  it('hides passwords wherever a connection string may carry one', () => {
    expect(maskConnectionString('postgres://team:hunter2@db:5432/conclave')).toBe(
      'postgres://team:***@db:5432/conclave',
    );
    expect(maskConnectionString('postgres://db/conclave?password=hunter2&sslmode=require')).not.toContain('hunter2');
    expect(maskConnectionString('host=db password=hunter2 dbname=conclave')).not.toContain('hunter2');
    expect(maskConnectionString('postgres://team@db/conclave')).toBe('postgres://team@db/conclave');
    // No user, a password holding an unencoded @, a password parameter: each shown as ***.
    expect(maskConnectionString('postgres://:hunter2@db/conclave')).toBe('postgres://:***@db/conclave');
    expect(maskConnectionString('postgres://team:hunt@r2@db/conclave')).toBe('postgres://team:***@db/conclave');
    expect(maskConnectionString('postgres://team@db/conclave?password=hunter2&sslmode=require')).toBe(
      'postgres://team@db/conclave?password=***&sslmode=require',
    );
    expect(maskConnectionString("host=db password='hunter 2' dbname=conclave")).toBe(
      'host=db password=*** dbname=conclave',
    );
  });

  it('keeps the password out of the store location', async () => {
    const store = createPostgresStore({ connectionString: 'postgres://team:hunter2@db.internal/conclave' });
    expect(store.location).toBe('postgres://team:***@db.internal/conclave (schema conclave)');
    await store.close();
  });

  it('refuses options it cannot use, saying which', () => {
    expect(() => createPostgresStore({})).toThrow(/connectionString or pool/);
    const error = (() => {
      try {
        createPostgresStore({ connectionString: 'postgres://db/x', schema: 'Robert"; DROP' });
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(UsageError.isInstance(error)).toBe(true);
    expect(String(error)).toContain('schema');
  });
});
