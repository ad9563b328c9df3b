/**
 * `actorkit update` on actors with symbolic links at random places (linked folders on the way to
 * files the template adds, changes or deletes; linked files; dangling links; a linked answers
 * file): nothing outside the actor ever changes, and an update refused for a link leaves the
 * actor byte for byte as it was.
 */
import fc from 'fast-check';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateActor } from '../../cli/update/update-actor.js';
import { memoryIo } from '../cli/support/memory-io.js';
import { temporaryFolder } from '../cli/support/template-repo.js';
import { treeHash } from '../cli/support/tree-hash.js';
import { actorAtFirstRelease, templateRepoEnv } from '../cli/support/two-release-template.js';

const V1 = { 'a/x.txt': 'x1\n', 'a/b/y.txt': 'y1\n', 'a/b/gone.txt': 'gone\n', 'c/z.txt': 'z\n', 'top.txt': 'top1\n' };
const V2 = {
  'a/x.txt': 'x2\n',
  'a/b/y.txt': 'y2\n',
  'a/b/added.txt': 'added\n',
  'c/z.txt': 'z\n',
  'd/e/new.txt': 'new\n',
  'top.txt': 'top2\n',
};

/** Where a link may stand: folders and files of the actor, paths the update creates, and the answers file. */
const PLACES = [
  'a',
  'a/b',
  'c',
  'd',
  'd/e',
  'a/x.txt',
  'a/b/y.txt',
  'a/b/gone.txt',
  'a/b/added.txt',
  'c/z.txt',
  'top.txt',
  'd/e/new.txt',
  '.actorkit-answers.yml',
] as const;
/** What a link points to: what stood there, moved outside; an empty folder outside; a file outside; nothing. */
const KINDS = ['moved-out', 'empty-folder', 'outside-file', 'dangling'] as const;
type Placement = { readonly place: (typeof PLACES)[number]; readonly kind: (typeof KINDS)[number] };

const folder = temporaryFolder('actorkit-update-links-property-');
let repository: string;
let pristine: string;
let runs = 0;

const env = () => templateRepoEnv(repository);

beforeAll(async () => {
  ({ repository, pristine } = await actorAtFirstRelease(folder.dir, V1, V2));
}, 60_000);
afterAll(() => folder.cleanup());

/** Places the links in a fresh copy of the actor; returns the links really placed (one under or above a link placed before is skipped). */
function placeLinks(actor: string, outside: string, placements: readonly Placement[]): Map<string, string> {
  const placed = new Map<string, string>();
  placements.forEach(({ place, kind }, index) => {
    const path = join(actor, place);
    if (
      [...placed.keys()].some((link) => place === link || place.startsWith(`${link}/`) || link.startsWith(`${place}/`))
    )
      return;
    mkdirSync(dirname(path), { recursive: true });
    const target = join(outside, `${index}-${kind}`);
    const exists = lstatSync(path, { throwIfNoEntry: false }) !== undefined;
    if (kind === 'moved-out' && exists) renameSync(path, target);
    else {
      rmSync(path, { recursive: true, force: true });
      if (kind === 'empty-folder' || (kind === 'moved-out' && !place.endsWith('.txt') && !place.endsWith('.yml')))
        mkdirSync(target);
      else if (kind !== 'dangling') writeFileSync(target, 'outside\n');
    }
    symlinkSync(target, path);
    placed.set(place, target);
  });
  return placed;
}

describe('actorkit update: links at random places in the actor', () => {
  it('never changes anything outside the actor; a refused update leaves the actor byte-identical', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ place: fc.constantFrom(...PLACES), kind: fc.constantFrom(...KINDS) }), { maxLength: 3 }),
        async (placements) => {
          const actor = join(folder.dir, `actor-${++runs}`);
          const outside = join(folder.dir, `outside-${runs}`);
          cpSync(pristine, actor, { recursive: true });
          mkdirSync(outside);
          const placed = placeLinks(actor, outside, placements);
          const before = { actor: treeHash(actor), outside: treeHash(outside) };
          const result = await updateActor({ actorDir: actor, io: memoryIo({ cwd: folder.dir, env: env() }).io });

          expect(treeHash(outside)).toEqual(before.outside);
          for (const [place, target] of placed) expect(readlinkSync(join(actor, place))).toBe(target);
          expect(Object.keys(treeHash(actor)).filter((path) => path.includes('.actorkit-update-'))).toEqual([]);
          if (result.status !== 'ok') {
            expect(result).toMatchObject({ status: 'refused', code: 'actor_symlink' });
            expect(treeHash(actor)).toEqual(before.actor);
          }
          if (placed.size === 0) {
            expect(result.status).toBe('ok');
            expect(existsSync(join(actor, 'd/e/new.txt'))).toBe(true);
          }
          rmSync(actor, { recursive: true, force: true });
          rmSync(outside, { recursive: true, force: true });
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);
});
