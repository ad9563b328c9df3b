import { existsSync } from 'node:fs';
import { join, dirname, resolve, sep } from 'node:path';
import { CliError } from '../cli-error.js';
import { createExcludeMatcher } from './exclude-matcher.js';
import { EMPTY_OPTION_ROUTES_SECTION } from '../route-list/index.js';
import { planTemplateFiles, type RenderPlan, RENDER_SUFFIX } from './plan-files.js';
import { assertNoLinkOnPath } from '../links-on-path.js';
import { loadTemplateConfig, TEMPLATE_CONFIG_FILE, type TemplateConfig } from './template-config.js';
import { createTemplateEngine, type TemplateEngine } from './template-engine.js';
import { readFile, writeFile, copyFile, mkdir, stat } from 'node:fs/promises';

/** A fetched template, checked and ready to answer and render. */
export interface OpenedTemplate {
  readonly config: TemplateConfig;
  /** The folder whose files are rendered (the checkout, or its `_subdirectory`). */
  readonly root: string;
  readonly engine: TemplateEngine;
}

/**
 * Reads a fetched template's template.yml and checks its `_subdirectory` (no links, present).
 * @param templateDir the folder holding template.yml.
 */
export async function openTemplate(templateDir: string): Promise<OpenedTemplate> {
  assertNoLinkOnPath(templateDir, TEMPLATE_CONFIG_FILE, TEMPLATE_CONFIG_FILE);
  const config = await loadTemplateConfig(templateDir);
  const root = join(templateDir, config.subdirectory);
  assertNoLinkOnPath(templateDir, config.subdirectory, `_subdirectory '${config.subdirectory}'`);
  if (!existsSync(root))
    throw new CliError(
      'failed',
      'invalid_template',
      `_subdirectory '${config.subdirectory}' does not exist in the template`,
    );
  return { config, root, engine: createTemplateEngine(root) };
}

/**
 * Computes every path an opened template renders with the given variables, before anything is
 * written (a path that escapes the target is refused here).
 * @param template the opened template.
 * @param context the answers and built-in variables.
 */
export function planTemplate(template: OpenedTemplate, context: Record<string, unknown>): Promise<RenderPlan> {
  const { config, engine, root } = template;
  const excluded = createExcludeMatcher(config.exclude);
  return planTemplateFiles(root, {
    engine,
    context,
    isExcluded: (path) =>
      path === '.git' || (config.subdirectory === '' && path === TEMPLATE_CONFIG_FILE) || excluded(path),
  });
}

/**
 * Writes a planned render of an opened template into a folder: the template's files, then the
 * package's Dockerfile when the actor brings none. The one renderer `new` and `update` share.
 * Templates see `option_routes_section`: the empty README section the route list is written
 * into once the actor's definition exists (by `new`, and by `validate --write`).
 * @param template the opened template.
 * @param plan the paths {@link planTemplate} computed with the same variables.
 * @param context the answers and built-in variables.
 * @param outputDir the (empty, staging) folder to write into.
 * @param packageRoot the actorkit package root (for `Dockerfile.template`).
 * @returns every file written, relative to `outputDir`.
 */
export async function renderTemplateInto(
  template: OpenedTemplate,
  plan: RenderPlan,
  context: Record<string, unknown>,
  outputDir: string,
  packageRoot: string,
): Promise<string[]> {
  await writeRenderPlan(plan, outputDir, template.engine, {
    ...context,
    option_routes_section: EMPTY_OPTION_ROUTES_SECTION,
  });
  const dockerfile = await renderDockerfile(outputDir, packageRoot, template.engine, context);
  return [...plan.files.map((file) => file.target), ...(dockerfile ? ['Dockerfile'] : [])];
}

/** actorkit's container recipe, rendered into every actor that brings no Dockerfile of its own. */
const DOCKERFILE_TEMPLATE = 'Dockerfile.template';

/**
 * Renders `<package root>/Dockerfile.template` with the answers into `<actor>/Dockerfile` when the
 * rendered tree is an actor (`package.json` and `src/actor.ts`) that brings no Dockerfile of its
 * own. Returns whether it wrote one.
 * @param actorDir the rendered actor (the staging folder)
 * @param packageRoot the actorkit package root
 */
async function renderDockerfile(
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

/**
 * Writes a render plan into a (staging) folder: folders first, then `.njk` files rendered and
 * every other file copied byte for byte, keeping the source's permission bits.
 * @param plan the output computed by `planTemplateFiles`.
 * @param outputDir the folder to write into; nothing is written outside it.
 * @param engine the template's engine.
 * @param context the answers to render with.
 */
async function writeRenderPlan(
  plan: RenderPlan,
  outputDir: string,
  engine: TemplateEngine,
  context: Record<string, unknown>,
): Promise<void> {
  for (const directory of plan.directories) await mkdir(within(outputDir, directory), { recursive: true });
  for (const file of plan.files) {
    const target = within(outputDir, file.target);
    await mkdir(dirname(target), { recursive: true });
    const { mode } = await stat(file.source);
    if (file.render) {
      const source = await readFile(file.source, 'utf8');
      await writeFile(target, engine.render(source, context, `file ${file.target}${RENDER_SUFFIX}`), {
        mode: mode & 0o777,
      });
    } else await copyFile(file.source, target);
  }
}

/** Resolves a planned path and checks once more that it stays inside the output folder. */
function within(outputDir: string, relativePath: string): string {
  const target = resolve(outputDir, relativePath);
  if (!target.startsWith(outputDir + sep)) throw new Error(`refusing to write outside ${outputDir}: ${relativePath}`);
  return target;
}
