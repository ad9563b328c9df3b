import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type TreeWatch, watchTree } from './watch-tree.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A watched scratch tree and the paths its watch reported, with a wait for the next report of a path. */
function watchedTree() {
  const root = mkdtempSync(join(tmpdir(), 'actorkit-watch-tree-'));
  mkdirSync(join(root, 'src', 'demo'), { recursive: true });
  writeFileSync(join(root, 'src', 'demo', 'client.ts'), 'v0\n');
  const seen: string[] = [];
  const watch: TreeWatch = watchTree(join(root, 'src'), (path) => seen.push(path));
  cleanups.push(() => {
    watch.close();
    rmSync(root, { recursive: true, force: true });
  });
  const nextChangeOf = async (path: string, from: number) => {
    const deadline = Date.now() + 5_000;
    while (!seen.slice(from).includes(path)) {
      if (Date.now() > deadline)
        throw new Error(`no change of ${path} reported; seen ${JSON.stringify(seen.slice(from))}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { root, seen, nextChangeOf };
}

describe('watchTree', () => {
  it('sees every save of a file that is replaced by a rename (as sed -i and many editors save), not only the first', async () => {
    const { root, seen, nextChangeOf } = watchedTree();
    const file = join(root, 'src', 'demo', 'client.ts');
    for (let save = 1; save <= 5; save += 1) {
      const from = seen.length;
      writeFileSync(`${file}.tmp`, `v${save}\n`);
      renameSync(`${file}.tmp`, file);
      await nextChangeOf(file, from);
    }
  });

  it('sees a save written in place, and a file in a folder created after the watch started', async () => {
    const { root, seen, nextChangeOf } = watchedTree();
    let from = seen.length;
    writeFileSync(join(root, 'src', 'demo', 'client.ts'), 'in place\n');
    await nextChangeOf(join(root, 'src', 'demo', 'client.ts'), from);
    mkdirSync(join(root, 'src', 'tools'));
    await nextChangeOf(join(root, 'src', 'tools'), from);
    from = seen.length;
    writeFileSync(join(root, 'src', 'tools', 'lookup.ts'), 'export {};\n');
    await nextChangeOf(join(root, 'src', 'tools', 'lookup.ts'), from);
  });

  it('reports nothing after close', async () => {
    const { root, seen } = watchedTree();
    cleanups.shift()?.();
    mkdirSync(join(root, 'src', 'demo'), { recursive: true });
    const from = seen.length;
    writeFileSync(join(root, 'src', 'demo', 'client.ts'), 'after close\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.slice(from)).toEqual([]);
    rmSync(root, { recursive: true, force: true });
  });
});
