import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TemplateEngine } from './template-engine.js';

/** actorkit's container recipe, rendered into every actor that brings no Dockerfile of its own. */
const DOCKERFILE_TEMPLATE = 'Dockerfile.template';

/**
 * Renders `<package root>/Dockerfile.template` with the answers into `<actor>/Dockerfile` when the
 * rendered tree is an actor (`package.json` and `src/actor.ts`) that brings no Dockerfile of its
 * own. Returns whether it wrote one.
 * @param actorDir the rendered actor (the staging folder)
 * @param packageRoot the actorkit package root
 */
export async function renderDockerfile(
  actorDir: string,
  packageRoot: string,
  engine: TemplateEngine,
  context: Record<string, unknown>,
): Promise<boolean> {
  const source = join(packageRoot, DOCKERFILE_TEMPLATE);
  const target = join(actorDir, 'Dockerfile');
  const isActor = existsSync(join(actorDir, 'package.json')) && existsSync(join(actorDir, 'src', 'actor.ts'));
  if (!isActor || existsSync(target) || !existsSync(source)) return false;
  await writeFile(target, engine.render(await readFile(source, 'utf8'), context, DOCKERFILE_TEMPLATE));
  return true;
}
