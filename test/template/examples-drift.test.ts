import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { renderActor } from '../../cli/render/render-actor.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'examples');
const IGNORED = new Set(['node_modules', 'dist', '.actorkit', 'package-lock.json']);
/**
 * Inside the checkout, as the examples are: an actor rendered there links to the checkout
 * (`file:…`) instead of carrying it packed in vendor/, which an actor rendered elsewhere does.
 */
const scratchParent = join(ROOT, 'node_modules', '.cache');
mkdirSync(scratchParent, { recursive: true });
const scratch = mkdtempSync(join(scratchParent, 'actorkit-drift-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (IGNORED.has(entry)) return [];
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? listFiles(path, base) : [relative(base, path)];
  });
}

/** The one value that differs by where an actor is rendered: its `file:` link to this checkout (in package.json, and recorded in the answers file). */
const normalise = (file: string, text: string) =>
  file === 'package.json'
    ? text.replace(/"actorkit": "file:[^"]*"/, '"actorkit": "file:<actorkit>"')
    : file === '.actorkit-answers.yml'
      ? text.replace(/actorkit_dependency: file:\S*/, 'actorkit_dependency: file:<actorkit>')
      : text;

describe('the checked-in examples', () => {
  const examples = readdirSync(EXAMPLES).filter((name) => statSync(join(EXAMPLES, name)).isDirectory());

  it('are at least the two the template options call for', () => {
    expect(examples).toEqual(expect.arrayContaining(['hello-actor', 'mesh-actor', 'panel-workflow-actor']));
  });

  for (const name of examples) {
    it(`${name} is exactly what the template renders from its answers (re-render it when this fails)`, async () => {
      const example = join(EXAMPLES, name);
      const { answers } = parse(readFileSync(join(example, '.actorkit-answers.yml'), 'utf8')) as {
        answers: Record<string, unknown>;
      };
      const { actor_name: actorName, ...rest } = answers;
      const target = join(scratch, name);
      const result = await renderActor({
        actorName: String(actorName),
        targetDir: target,
        defaults: true,
        data: Object.entries(rest).map(([key, value]) => `${key}=${String(value)}`),
        io: { interactive: false, cwd: ROOT },
      });
      expect(result.status, JSON.stringify(result)).toBe('ok');
      const expected = listFiles(target).sort();
      expect(listFiles(example).sort()).toEqual(expected);
      for (const file of expected) {
        expect(normalise(file, readFileSync(join(example, file), 'utf8')), file).toBe(
          normalise(file, readFileSync(join(target, file), 'utf8')),
        );
      }
    });
  }
});
