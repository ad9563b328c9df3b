import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { RENDER_SUFFIX, type RenderPlan } from './plan-files.js';
import type { TemplateEngine } from './template-engine.js';

/**
 * Writes a render plan into a (staging) folder: folders first, then `.njk` files rendered and
 * every other file copied byte for byte, keeping the source's permission bits.
 * @param plan the output computed by `planTemplateFiles`.
 * @param outputDir the folder to write into; nothing is written outside it.
 * @param engine the template's engine.
 * @param context the answers to render with.
 */
export async function writeRenderPlan(
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
