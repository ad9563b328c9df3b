/**
 * Writes the README's table of environment variables from `src/environment/environment-variables.ts`
 * (between the environment-table markers). `npm run docs:env`; a test fails when the README differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withEnvironmentTable } from '../src/environment/environment-table.js';

const readme = new URL('../README.md', import.meta.url);
const before = readFileSync(readme, 'utf8');
const after = withEnvironmentTable(before);
if (after === before) {
  console.log('README.md: the environment table is up to date');
} else {
  writeFileSync(readme, after);
  console.log('README.md: the environment table was rewritten');
}
