/**
 * Writes docs/http-api.md's table of error codes from `src/core/problem-codes.ts` (between the
 * problem-code-table markers). `npm run docs:problems`; a test fails when the doc differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withProblemCodeTable } from '../src/core/problem-code-table.js';

const doc = new URL('../docs/http-api.md', import.meta.url);
const before = readFileSync(doc, 'utf8');
const after = withProblemCodeTable(before);
if (after === before) {
  console.log('docs/http-api.md: the error-code table is up to date');
} else {
  writeFileSync(doc, after);
  console.log('docs/http-api.md: the error-code table was rewritten');
}
