import { readFileSync, writeFileSync } from 'node:fs';

/** The marker before the generated part of docs/performance.md; everything outside the markers is hand-written. */
export const GENERATED_START = '<!-- bench:results:start (written by `npm run bench`; edits here are overwritten) -->';
/** The marker after the generated part of docs/performance.md. */
export const GENERATED_END = '<!-- bench:results:end -->';

/**
 * Replaces the text between the generated-section markers of a markdown file with `body`,
 * leaving the rest of the file as it is. Throws when the markers are missing or out of order,
 * rather than guessing where the figures go.
 * @param path the markdown file
 * @param body the new generated section
 */
export function updateDocSection(path: string, body: string): void {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(GENERATED_START);
  const end = text.indexOf(GENERATED_END);
  if (start === -1 || end === -1 || end < start) {
    throw new Error(`${path} lacks the markers ${GENERATED_START} … ${GENERATED_END}`);
  }
  writeFileSync(path, `${text.slice(0, start + GENERATED_START.length)}\n${body}\n${text.slice(end)}`);
}
