import { it } from 'vitest';

/**
 * The PostgreSQL the store suites run against (`TEST_DATABASE_URL`). When it is unset, the
 * calling file's PostgreSQL tests are left out with a visible message and one skipped test
 * naming why, except under CI (`CI` set), where a failing test is registered instead.
 */
export function postgresTestUrl(suite: string): string | undefined {
  const url = process.env.TEST_DATABASE_URL?.trim();
  if (url) return url;
  if (process.env.CI) {
    it(`${suite}: TEST_DATABASE_URL must be set in CI`, () => {
      throw new Error(
        `TEST_DATABASE_URL is not set, so the PostgreSQL suite "${suite}" cannot run; CI must provide a database (.ci/run starts one)`,
      );
    });
  } else {
    const notice = `TEST_DATABASE_URL is unset: PostgreSQL suite "${suite}" NOT RUN (try TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)`;
    console.warn(`\n[store tests] ${notice}\n`);
    it.skip(notice, () => {});
  }
  return undefined;
}
