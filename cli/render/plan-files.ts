import { lstat, readdir } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { CliError } from '../cli-error.js';
import type { TemplateEngine } from './template-engine.js';

/** The suffix that marks a template file to render; it is removed from the output name. */
export const RENDER_SUFFIX = '.njk';

/** One file of the output: where it comes from, where it goes, and whether it is rendered. */
interface PlannedFile {
  /** Absolute path of the template file. */
  readonly source: string;
  /** POSIX path inside the target folder. */
  readonly target: string;
  /** `true` for `.njk` files (rendered), `false` for files copied byte for byte. */
  readonly render: boolean;
}

/** Every folder and file a render will write, computed before anything is written. */
export interface RenderPlan {
  readonly directories: readonly string[];
  readonly files: readonly PlannedFile[];
}

/** What the planner needs besides the template root. */
export interface PlanOptions {
  readonly engine: TemplateEngine;
  readonly context: Record<string, unknown>;
  /** Template-relative POSIX paths that are never output (`_exclude`, `.git`, template.yml). */
  readonly isExcluded: (relativePath: string) => boolean;
}

/**
 * Walks a template folder and renders every file and folder name. A name that renders empty skips
 * that path (and all below a folder); a rendered path that leaves the target folder is refused
 * (code `path_escape`), as are two sources rendering to the same path and symbolic links.
 * @param root the template root (the repository, or its `_subdirectory`).
 * @param options the engine, the answers and the exclusions.
 */
export async function planTemplateFiles(root: string, options: PlanOptions): Promise<RenderPlan> {
  const directories: string[] = [];
  const files: PlannedFile[] = [];
  const claimed = new Map<string, string>();
  const claim = (target: string, source: string) => {
    const earlier = claimed.get(target);
    if (earlier !== undefined) {
      throw new CliError(
        'failed',
        'path_collision',
        `template paths '${earlier}' and '${source}' both render to '${target}'`,
      );
    }
    claimed.set(target, source);
  };
  const walk = async (sourceDir: string, sourceRel: string, targetRel: string): Promise<void> => {
    const entries = (await readdir(sourceDir)).sort();
    for (const name of entries) {
      const relative = sourceRel === '' ? name : `${sourceRel}/${name}`;
      if (options.isExcluded(relative)) continue;
      const source = join(sourceDir, name);
      const stats = await lstat(source);
      if (stats.isSymbolicLink()) {
        throw new CliError(
          'failed',
          'template_symlink',
          `the template contains a symbolic link, which is not supported: ${relative}`,
        );
      }
      const isTemplate = stats.isFile() && name.endsWith(RENDER_SUFFIX);
      const sourceName = isTemplate ? name.slice(0, -RENDER_SUFFIX.length) : name;
      const rendered = options.engine.render(sourceName, options.context, `name of ${relative}`);
      if (rendered.trim() === '') continue;
      const target = insideTarget(targetRel, rendered, relative);
      if (stats.isDirectory()) {
        if (target !== '') {
          claim(target, relative);
          directories.push(target);
        }
        await walk(source, relative, target);
      } else if (stats.isFile()) {
        if (target === '') throw pathEscape(relative, rendered);
        claim(target, relative);
        files.push({ source, target, render: isTemplate });
      }
    }
  };
  await walk(root, '', '');
  return { directories, files };
}

/** Joins a rendered name to its parent and refuses any result outside the target folder. */
function insideTarget(parent: string, rendered: string, relative: string): string {
  if (rendered.includes('\0') || rendered.startsWith('/') || rendered.includes('\\'))
    throw pathEscape(relative, rendered);
  const joined = posix.normalize(parent === '' ? rendered : `${parent}/${rendered}`).replace(/\/+$/, '');
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) throw pathEscape(relative, rendered);
  return joined === '.' ? '' : joined;
}

function pathEscape(relative: string, rendered: string): CliError {
  return new CliError(
    'refused',
    'path_escape',
    `template path '${relative}' renders to '${rendered}', which is outside the target folder; nothing was written`,
  );
}
