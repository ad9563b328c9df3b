import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Rewrites one generated block of a Markdown file of the checkout and says whether it changed.
 * @param file the file, relative to the checkout (`README.md`, `docs/configuration.md`).
 * @param what the block's name, for the message (`the environment table`).
 * @param regenerate the file's text with the block regenerated.
 */
export function writeGeneratedDoc(file: string, what: string, regenerate: (markdown: string) => string): void {
  const url = new URL(`../${file}`, import.meta.url);
  const before = readFileSync(url, 'utf8');
  const after = regenerate(before);
  if (after === before) {
    console.log(`${file}: ${what} is up to date`);
  } else {
    writeFileSync(url, after);
    console.log(`${file}: ${what} was rewritten`);
  }
}
