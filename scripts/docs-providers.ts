/**
 * Writes the table of model providers in docs/agent.md from `src/agent/model-providers.ts`
 * (between the model-providers markers). `npm run docs:providers`; a test fails when the doc differs.
 */
import { withModelProviderTable } from '../src/agent/model-providers.js';
import { rewriteGenerated } from './rewrite-generated.js';

rewriteGenerated(
  new URL('../docs/agent.md', import.meta.url),
  'docs/agent.md: the table of model providers',
  withModelProviderTable,
);
