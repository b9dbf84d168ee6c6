import { StoreIoError } from '@resume/core/spec';
import { describe, expect, it } from 'vitest';
import { translateDatabaseError } from './database-errors.js';

const location = 'postgres://conclave:***@db.internal/conclave';

describe('translateDatabaseError', () => {
  it('says the server went away, and that the session resumes once it is back, for every way a connection dies', () => {
    const died = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is shutting down'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      new Error('Connection terminated unexpectedly'),
    ];
    for (const error of died) {
      const translated = translateDatabaseError(error, location, 'append to session x');
      expect(StoreIoError.isInstance(translated)).toBe(true);
      expect(translated.message).toContain(`The PostgreSQL store at ${location} could not append to session x`);
      expect(translated.hint, error.message).toContain('resumed once the server is back');
    }
  });

  it('names the fix when the server refuses the database, the user or the password of the store URL', () => {
    const missing = translateDatabaseError(
      Object.assign(new Error('database "conclave_prod" does not exist'), { code: '3D000' }),
      location,
      'connect',
    );
    expect(missing.message).toContain('database "conclave_prod" does not exist');
    expect(missing.hint).toBe(
      'The server has no database "conclave_prod": create it (createdb conclave_prod) or name an existing one in the store URL.',
    );
    for (const code of ['28P01', '28000']) {
      const refused = translateDatabaseError(
        Object.assign(new Error('password authentication failed for user "conclave"'), { code }),
        location,
        'connect',
      );
      expect(refused.hint).toContain("refused the store URL's user or its password");
    }
  });

  it('keeps a plain retry hint for other failures, and passes Conclave errors through', () => {
    const other = translateDatabaseError(Object.assign(new Error('deadlock'), { code: '40P01' }), location, 'read');
    expect(other.hint).toContain('Retry');
    const own = new StoreIoError('already typed', location);
    expect(translateDatabaseError(own, location, 'read')).toBe(own);
  });
});
