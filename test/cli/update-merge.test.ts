import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeThreeWay, type ThreeWayInput } from '../../cli/update/merge-three-way.js';
import { planUpdate } from '../../cli/update/plan-update.js';
import { temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder('actorkit-update-merge-');
afterAll(() => folder.cleanup());

const WITH_GIT = { PATH: process.env.PATH };
/** A PATH where git cannot be found: the merge falls back to node-diff3. */
const WITHOUT_GIT = { PATH: join(folder.dir, 'empty-bin') };
const labels = { current: 'yours', base: 'template v1.0.0', other: 'template v1.1.0' };
const BASE = 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n';

const cases: [string, Omit<ThreeWayInput, 'labels'>, string, number][] = [
  [
    'edits in other lines merge cleanly',
    { current: BASE.replace('line 1', 'LINE 1'), base: BASE, other: BASE.replace('line 7', 'line seven') },
    BASE.replace('line 1', 'LINE 1').replace('line 7', 'line seven'),
    0,
  ],
  [
    'edits on the same line conflict with git markers',
    { current: BASE.replace('line 4', 'mine'), base: BASE, other: BASE.replace('line 4', 'theirs') },
    'line 1\nline 2\nline 3\n<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> template v1.1.0\nline 5\nline 6\nline 7\n',
    1,
  ],
  [
    'the same edit on both sides is no conflict',
    { current: BASE.replace('line 2', 'same'), base: BASE, other: BASE.replace('line 2', 'same') },
    BASE.replace('line 2', 'same'),
    0,
  ],
  [
    'a template deletion of a line the author kept merges',
    { current: `${BASE}line 8\n`, base: BASE, other: BASE.replace('line 3\n', '') },
    `${BASE.replace('line 3\n', '')}line 8\n`,
    0,
  ],
];

describe('mergeThreeWay: git merge-file, else node-diff3', () => {
  it.each(cases)('%s — with git on the PATH', async (_what, input, expected, conflicts) => {
    expect(await mergeThreeWay({ ...input, labels }, WITH_GIT)).toEqual({ text: expected, conflicts, engine: 'git' });
  });

  it.each(cases)('%s — the same without git (node-diff3)', async (_what, input, expected, conflicts) => {
    mkdirSync(WITHOUT_GIT.PATH, { recursive: true });
    expect(await mergeThreeWay({ ...input, labels }, WITHOUT_GIT)).toEqual({
      text: expected,
      conflicts,
      engine: 'diff3',
    });
  });

  // git joins conflicts fewer than four lines apart into one; these are further apart.
  const MIDDLE = 'c\nd\ne\ng\nh\ni\n';
  it('counts every conflict block, and a last line without a newline still ends before the marker', async () => {
    for (const env of [WITH_GIT, WITHOUT_GIT]) {
      const merged = await mergeThreeWay(
        { current: `a\nB\n${MIDDLE}F`, base: `a\nb\n${MIDDLE}f`, other: `a\nX\n${MIDDLE}Y`, labels },
        env,
      );
      expect(merged.conflicts, merged.engine).toBe(2);
      expect(merged.text, merged.engine).toContain('<<<<<<< yours\nF\n=======\nY\n>>>>>>> template v1.1.0\n');
    }
  });
});

describe('planUpdate: binary files are never merged', () => {
  it("keeps the author's binary file when both sides changed it, and reports it", async () => {
    const dirs = { actor: join(folder.dir, 'actor'), old: join(folder.dir, 'old'), new: join(folder.dir, 'new') };
    for (const [dir, bytes] of [
      [dirs.actor, [0, 1, 2, 9]],
      [dirs.old, [0, 1, 2, 3]],
      [dirs.new, [0, 1, 2, 4]],
    ] as const) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'icon.png'), Buffer.from(bytes));
    }
    const { plan, writes } = await planUpdate({
      actorDir: dirs.actor,
      oldRender: { dir: dirs.old, files: ['icon.png'] },
      newRender: { dir: dirs.new, files: ['icon.png'] },
      labels,
      skip: new Set(),
      env: WITH_GIT,
    });
    expect(plan.kept).toEqual([
      { path: 'icon.png', reason: 'binary, changed by you and by the template: yours is kept, not merged' },
    ]);
    expect(writes).toEqual([]);
    expect([...readFileSync(join(dirs.actor, 'icon.png'))]).toEqual([0, 1, 2, 9]);
  });
});
