import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderActor } from '../../../cli/render/render-actor.js';
import { gitIn, writeFiles } from './template-repo.js';

/**
 * Creates a template repository with two release tags: `v1.0.0` holding `v1`'s files and `v1.1.0`
 * holding `v2`'s (files `v1` has and `v2` lacks are deleted) and `v2Links` (path → link target).
 * Both get a template.yml asking only `actor_name`, unless the files bring their own. Returns the
 * repository's path.
 */
export function twoReleaseTemplate(
  root: string,
  name: string,
  v1: Record<string, string>,
  v2: Record<string, string>,
  v2Links: Record<string, string> = {},
): string {
  const dir = join(root, name);
  gitIn(root, 'init', '--quiet', '--initial-branch=main', dir);
  const release = (files: Record<string, string>, tag: string) => {
    writeFiles(dir, { 'template.yml': 'actor_name:\n  type: str\n', ...files });
    gitIn(dir, 'add', '--all');
    gitIn(dir, 'commit', '--quiet', '-m', tag);
    gitIn(dir, 'tag', tag);
  };
  release(v1, 'v1.0.0');
  for (const path of Object.keys(v1)) if (!(path in v2)) rmSync(join(dir, path));
  for (const [path, target] of Object.entries(v2Links)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    symlinkSync(target, join(dir, path));
  }
  release(v2, 'v1.1.0');
  return dir;
}

/** The environment of a CLI run whose `ACTORKIT_TEMPLATE_REPO` names `repository`. */
export function templateRepoEnv(repository: string): Record<string, string | undefined> {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ACTORKIT_TEMPLATE_REPO: repository };
}

/**
 * Renders an actor from `repository` at `v1.0.0` into `targetDir`, as `new --ref v1.0.0` does with
 * `ACTORKIT_TEMPLATE_REPO` naming it; throws when the render does not succeed.
 */
export async function renderFirstRelease(
  repository: string,
  targetDir: string,
  actorName: string,
  data: readonly string[] = [],
): Promise<void> {
  const rendered = await renderActor({
    actorName,
    targetDir,
    ref: 'v1.0.0',
    data,
    io: { cwd: dirname(targetDir), env: templateRepoEnv(repository), interactive: false },
  });
  if (rendered.status !== 'ok')
    throw new Error(`rendering ${repository} at v1.0.0 failed: ${JSON.stringify(rendered)}`);
}

/** A {@link twoReleaseTemplate} named `template` under `root`, and the actor `linked` rendered from its `v1.0.0` into `root/pristine`. */
export async function actorAtFirstRelease(
  root: string,
  v1: Record<string, string>,
  v2: Record<string, string>,
): Promise<{ repository: string; pristine: string }> {
  const repository = twoReleaseTemplate(root, 'template', v1, v2);
  const pristine = join(root, 'pristine');
  await renderFirstRelease(repository, pristine, 'linked');
  return { repository, pristine };
}
