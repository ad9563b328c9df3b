import { TestSchemas } from '../../store/postgres-schemas.js';

/**
 * The PostgreSQL the platform's replica suites (`*.postgres.test.ts`) run on: `TEST_DATABASE_URL`.
 * Replicas on one database are what they test, so they cannot skip inside: vitest.config.ts leaves
 * them out locally when the variable is unset, and under CI this fails the file, saying what to set.
 */
export function platformDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL?.trim();
  if (!url)
    throw new Error(
      'TEST_DATABASE_URL is not set: the platform tests run replicas on one PostgreSQL (e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)',
    );
  return url;
}

/**
 * Schemas of their own, under `prefix`, on {@link platformDatabaseUrl}.
 * @param prefix the schema prefix of one test file
 */
export function requirePostgres(prefix: string): TestSchemas {
  return new TestSchemas(platformDatabaseUrl(), prefix);
}
