/**
 * Writes docs/http-api.md's table of error codes from `src/core/problem-codes.ts` (between the
 * problem-code-table markers). `npm run docs:problems`; a test fails when the doc differs.
 */
import { withProblemCodeTable } from '../src/core/problem-code-table.js';
import { rewriteGenerated } from './rewrite-generated.js';

rewriteGenerated(
  new URL('../docs/http-api.md', import.meta.url),
  'docs/http-api.md: the error-code table',
  withProblemCodeTable,
);
