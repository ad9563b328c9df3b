import { TestSchemas } from '../../store/postgres-schemas.js';

/**
 * The PostgreSQL the platform's replica tests share their database on (`TEST_DATABASE_URL`).
 * Unlike the store suites these never skip: replicas on one database are what they test, so a
 * missing variable fails the file at once, saying what to set.
 */
export function requirePostgres(prefix: string): TestSchemas {
  const url = process.env.TEST_DATABASE_URL?.trim();
  if (!url) throw new Error('TEST_DATABASE_URL is not set: the platform gateway tests run replicas on one PostgreSQL (e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)');
  return new TestSchemas(url, prefix);
}
