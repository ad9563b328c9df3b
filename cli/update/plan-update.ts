import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ActorLinks } from './actor-links.js';
import { mergeThreeWay, type ThreeWayInput } from './merge-three-way.js';

/** A file the update leaves as the author has it, and why. */
export interface KeptFile {
  readonly path: string;
  readonly reason: string;
}

/** What an update does to each file, by outcome; every path is relative to the actor, sorted. */
export interface UpdatePlan {
  /** Files the new template added, written as it renders them. */
  readonly created: readonly string[];
  /** Files the author never changed, replaced by the new render. */
  readonly updated: readonly string[];
  /** Files both changed, merged without a conflict. */
  readonly merged: readonly string[];
  /** Files both changed where the changes overlap: written with git's conflict markers. */
  readonly conflicted: readonly string[];
  /** Files the new template dropped that the author never changed. */
  readonly deleted: readonly string[];
  /** Files the template changed that stay as the author has them (deleted, changed, binary). */
  readonly kept: readonly KeptFile[];
}

/** One write the plan calls for. */
export type UpdateWrite =
  | { readonly kind: 'copy'; readonly path: string; readonly from: string }
  | { readonly kind: 'write'; readonly path: string; readonly text: string }
  | { readonly kind: 'delete'; readonly path: string };

/** The three folders compared, the files each render holds, and the marker labels. */
export interface PlanUpdateInput {
  readonly actorDir: string;
  readonly oldRender: { readonly dir: string; readonly files: readonly string[] };
  readonly newRender: { readonly dir: string; readonly files: readonly string[] };
  readonly labels: ThreeWayInput['labels'];
  /** Paths the update never merges but rewrites itself (the answers file, the emitted configuration); checked for links like the rest. */
  readonly skip: ReadonlySet<string>;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Decides, file by file, how the change from the old render to the new render reaches the actor:
 * untouched files are replaced, files both sides changed are merged three ways (conflicts marked
 * like git), added files are created (an author's different file there is a conflict), dropped
 * files are deleted only when the author never changed them, and a file the author deleted stays
 * deleted. Binary files are never merged: the author's copy is kept and reported. Reads only, and
 * nothing through a symbolic link: a linked folder or file on any path the update would read,
 * write or delete (the skipped paths it rewrites included) is a `refused` {@link CliError}
 * (`actor_symlink`) naming every such link, raised before the caller writes anything.
 * @param input the actor, the two renders, the marker labels and the paths to leave alone.
 */
export async function planUpdate(input: PlanUpdateInput): Promise<{ plan: UpdatePlan; writes: UpdateWrite[] }> {
  const plan = {
    created: [] as string[],
    updated: [] as string[],
    merged: [] as string[],
    conflicted: [] as string[],
    deleted: [] as string[],
    kept: [] as KeptFile[],
  };
  const writes: UpdateWrite[] = [];
  const oldFiles = new Set(input.oldRender.files);
  const newFiles = new Set(input.newRender.files);
  const paths = [...new Set([...oldFiles, ...newFiles])].filter((path) => !input.skip.has(path)).sort();
  const links = new ActorLinks(input.actorDir);
  for (const path of input.skip) links.passable(path);
  for (const path of paths) {
    const base = oldFiles.has(path) ? await readFile(join(input.oldRender.dir, path)) : undefined;
    const other = newFiles.has(path) ? await readFile(join(input.newRender.dir, path)) : undefined;
    if (base !== undefined && other !== undefined && base.equals(other)) continue;
    if (!links.passable(path)) continue;
    const current = await readActorFile(input.actorDir, path);
    if (current === 'not-a-file') {
      plan.kept.push({ path, reason: 'not a regular file in the actor; left alone' });
      continue;
    }
    if (other === undefined) {
      if (current === undefined) continue;
      if (base !== undefined && current.equals(base)) {
        plan.deleted.push(path);
        writes.push({ kind: 'delete', path });
      } else plan.kept.push({ path, reason: 'the new template dropped it, but you changed it' });
      continue;
    }
    const copy = { kind: 'copy', path, from: join(input.newRender.dir, path) } as const;
    if (current === undefined) {
      if (base === undefined) {
        plan.created.push(path);
        writes.push(copy);
      } else plan.kept.push({ path, reason: 'you deleted it, so it stays deleted; the template changed it' });
      continue;
    }
    if (current.equals(other)) continue;
    if (base !== undefined && current.equals(base)) {
      plan.updated.push(path);
      writes.push(copy);
      continue;
    }
    if ([current, other, base].some((bytes) => bytes !== undefined && isBinary(bytes))) {
      const why =
        base === undefined
          ? 'the new template adds a different binary file here'
          : 'binary, changed by you and by the template';
      plan.kept.push({ path, reason: `${why}: yours is kept, not merged` });
      continue;
    }
    const merged = await mergeThreeWay(
      {
        current: current.toString('utf8'),
        base: base?.toString('utf8') ?? '',
        other: other.toString('utf8'),
        labels: input.labels,
      },
      input.env,
    );
    (merged.conflicts > 0 ? plan.conflicted : plan.merged).push(path);
    writes.push({ kind: 'write', path, text: merged.text });
  }
  links.refuseAny();
  return { plan, writes };
}

/** The actor's file, `undefined` when it is missing, `not-a-file` for a folder or anything else not a regular file. */
async function readActorFile(actorDir: string, path: string): Promise<Buffer | undefined | 'not-a-file'> {
  const stats = await lstat(join(actorDir, path)).catch(() => undefined);
  if (stats === undefined) return undefined;
  if (!stats.isFile()) return 'not-a-file';
  return readFile(join(actorDir, path));
}

/** Git's test: a NUL byte in the first 8,000 bytes makes a file binary. */
function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}
