/**
 * Writes docs/logs.md's table of log events from `src/log/log-events.ts` and the events
 * `actorkit dev` follows (`cli/dev/watched-actor.ts`), between the log-events-table markers.
 * `npm run docs:logs`; a test fails when docs/logs.md differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DEV_FOLLOWED_EVENTS } from '../cli/dev/watched-actor.js';
import { withLogEventsTable } from '../src/log/log-events-table.js';

const doc = new URL('../docs/logs.md', import.meta.url);
const before = readFileSync(doc, 'utf8');
const after = withLogEventsTable(before, DEV_FOLLOWED_EVENTS);
if (after === before) {
  console.log('docs/logs.md: the table of log events is up to date');
} else {
  writeFileSync(doc, after);
  console.log('docs/logs.md: the table of log events was rewritten');
}
