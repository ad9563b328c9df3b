/**
 * Writes the table of tuning rules in docs/configuration.md from `src/config/validate/platform-rules.ts`
 * (between the rule-table markers). `npm run docs:rules`; a test fails when the doc differs.
 */
import { withPlatformRuleTable } from '../src/config/validate/platform-rules.js';
import { rewriteGenerated } from './rewrite-generated.js';

rewriteGenerated(
  new URL('../docs/configuration.md', import.meta.url),
  'docs/configuration.md: the table of tuning rules',
  withPlatformRuleTable,
);
