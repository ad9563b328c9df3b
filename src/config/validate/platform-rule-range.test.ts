import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLATFORM_RULE_RANGE } from './platform-rule-range.js';
import { PLATFORM_RULES } from './platform-rules.js';

const ROOT = resolve(import.meta.dirname, '../../..');
/**
 * The folders and files whose text could name the rules: docs, the template, the sources, the tests.
 * Not the vendored platform schema (the platform's document) nor the examples (rendered from the template).
 */
const SCANNED = ['README.md', 'docs', 'templates', 'src', 'cli', 'test', 'scripts'];
const SKIPPED = new Set(['node_modules', 'dist', 'fixtures', 'runtimes']);
/** A range of rule letters written out by hand (A, a dash or en dash, a later letter; backquotes allowed), not a regex class. */
const HAND_WRITTEN_RANGE = /(?<![[\w])A`?\s?[–-]\s?`?[B-Z](?![\w\]])/;

function textFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return /\.(ts|mts|mjs|md|njk|json)$/.test(path) ? [path] : [];
  return readdirSync(path).flatMap((entry) => (SKIPPED.has(entry) ? [] : textFiles(join(path, entry))));
}

describe('PLATFORM_RULE_RANGE', () => {
  it('runs from the first registered letter to the last', () => {
    expect(PLATFORM_RULE_RANGE).toBe(`${PLATFORM_RULES[0].letter}–${PLATFORM_RULES.at(-1)?.letter}`);
  });

  it('is the only place the range of rule letters is written: docs, template, messages and tests read it', () => {
    const self = relative(ROOT, import.meta.filename);
    const places = SCANNED.flatMap((entry) => textFiles(join(ROOT, entry)))
      .map((file) => relative(ROOT, file))
      .filter((file) => file !== self)
      .flatMap((file) =>
        readFileSync(join(ROOT, file), 'utf8')
          .split('\n')
          .flatMap((line, index) => (HAND_WRITTEN_RANGE.test(line) ? [`${file}:${index + 1}`] : [])),
      );
    expect(places).toEqual([]);
  });
});
