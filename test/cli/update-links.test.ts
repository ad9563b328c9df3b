/**
 * `actorkit update` never writes, deletes or reads through a symbolic link in the actor (a linked
 * folder anywhere on a path, a linked file the update would replace, a linked answers file), and
 * it decides so before its first write: a refused update leaves the actor byte for byte as it was.
 */
import { cpSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run-cli.js';
import { memoryIo } from './support/memory-io.js';
import { temporaryFolder } from './support/template-repo.js';
import { treeHash } from './support/tree-hash.js';
import { actorAtFirstRelease, templateRepoEnv } from './support/two-release-template.js';

const folder = temporaryFolder('actorkit-update-links-');
let repository: string;
let pristine: string;
let copies = 0;

const V1 = { 'sub/old.txt': 'old\n', 'sub/keep.txt': 'keep v1\n', 'top.txt': 'top v1\n' };
const V2 = { 'sub/new.txt': 'new\n', 'sub/keep.txt': 'keep v2\n', 'top.txt': 'top v2\n', 'zz/last.txt': 'last\n' };

const env = () => templateRepoEnv(repository);

beforeAll(async () => {
  ({ repository, pristine } = await actorAtFirstRelease(folder.dir, V1, V2));
}, 60_000);
afterAll(() => folder.cleanup());

/** A copy of the v1.0.0 actor and an outside folder, after `link` placed links between them. */
function linkedActor(link: (actor: string, outside: string) => void): { actor: string; outside: string } {
  const actor = join(folder.dir, `actor-${++copies}`);
  const outside = join(folder.dir, `outside-${copies}`);
  cpSync(pristine, actor, { recursive: true });
  mkdirSync(outside);
  link(actor, outside);
  return { actor, outside };
}

/** Moves `path` of the actor to the outside folder and leaves a link to it in its place. */
function moveOutAndLink(actor: string, outside: string, path: string): void {
  renameSync(join(actor, path), join(outside, path.replaceAll('/', '_')));
  symlinkSync(join(outside, path.replaceAll('/', '_')), join(actor, path));
}

async function update(actor: string) {
  const io = memoryIo({ cwd: folder.dir, env: env() });
  const code = await runCli(['update', actor], io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

describe('actorkit update: symbolic links in the actor', () => {
  it.each([
    [
      'a linked folder the template adds to and deletes from (sub -> outside)',
      (actor: string, outside: string) => moveOutAndLink(actor, outside, 'sub'),
      'sub',
    ],
    [
      'a linked file the update would replace (top.txt -> outside)',
      (actor: string, outside: string) => moveOutAndLink(actor, outside, 'top.txt'),
      'top.txt',
    ],
    [
      'a linked file the update would delete (sub/old.txt -> outside)',
      (actor: string, outside: string) => moveOutAndLink(actor, outside, 'sub/old.txt'),
      'sub/old.txt',
    ],
    [
      'a linked answers file, written last (.actorkit-answers.yml -> outside)',
      (actor: string, outside: string) => moveOutAndLink(actor, outside, '.actorkit-answers.yml'),
      '.actorkit-answers.yml',
    ],
  ])('refuses %s (exit 2): nothing changes inside or outside the actor', async (_what, link, linkedPath) => {
    const { actor, outside } = linkedActor(link);
    const before = { actor: treeHash(actor), outside: treeHash(outside) };
    const result = await update(actor);
    expect(treeHash(outside)).toEqual(before.outside);
    expect(treeHash(actor)).toEqual(before.actor);
    expect(result.stderr).toContain(`${linkedPath} is a symbolic link`);
    expect(result.stderr).toContain('nothing was written');
    expect(result.code).toBe(2);
    expect(readlinkSync(join(actor, linkedPath))).toBe(join(outside, linkedPath.replaceAll('/', '_')));
  });

  it('stops before changing anything when its last write fails (a file stands where the template adds a folder): no file updated, the answers file as it was', async () => {
    const { actor } = linkedActor((dir) => writeFileSync(join(dir, 'zz'), 'a file, not a folder\n'));
    const before = treeHash(actor);
    const result = await update(actor);
    expect(treeHash(actor)).toEqual(before);
    expect(result.stderr).toContain('could not write zz/last.txt');
    expect(result.stderr).toContain('nothing was changed');
    expect(result.code).toBe(1);
  });

  it('updates an actor whose links lie where the update does not go (a linked folder of the author’s own)', async () => {
    const { actor, outside } = linkedActor((dir, out) => {
      mkdirSync(join(out, 'assets'));
      symlinkSync(join(out, 'assets'), join(dir, 'assets'));
    });
    const before = treeHash(outside);
    const result = await update(actor);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toMatch(/created {5}sub\/new\.txt\n/);
    expect(treeHash(outside)).toEqual(before);
  });

  it('follows a link to the actor folder itself once: the folder named is the actor', async () => {
    const { actor } = linkedActor(() => {});
    const named = join(folder.dir, `named-${copies}`);
    symlinkSync(actor, named);
    const result = await update(named);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    rmSync(named);
  });
});
