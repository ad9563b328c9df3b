import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Rewrites the generated part of a doc with `regenerate` and says whether it changed.
 * @param file the doc, e.g. `new URL('../README.md', import.meta.url)`
 * @param what what is generated, e.g. `README.md: the environment table`
 * @param regenerate the doc with its generated part rewritten
 */
export function rewriteGenerated(file: URL, what: string, regenerate: (doc: string) => string): void {
  const before = readFileSync(file, 'utf8');
  const after = regenerate(before);
  if (after === before) {
    console.log(`${what} is up to date`);
  } else {
    writeFileSync(file, after);
    console.log(`${what} was rewritten`);
  }
}
