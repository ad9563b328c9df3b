import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gitIn } from './template-repo.js';

const BUNDLED_TEMPLATE = resolve(import.meta.dirname, '../../../templates/actor');

/** The line of the system prompt that v1.1.0 rewrites (and the conflict test edits too). */
export const PROMPT_LINE_V1 = "  'When a tool fails, say so plainly and answer with what you know.',";
/** The same line at v1.1.0. */
export const PROMPT_LINE_V1_1 = "  'When a tool fails, say so plainly, name the tool, and answer with what you know.',";

/** What v1.1.0 changes, for assertions. */
export const V1_1 = {
  addedFile: 'CHANGELOG.md',
  deletedFile: 'src/main.deno.ts',
  changedFile: 'src/main.bun.ts',
  packageScript: '"typecheck": "tsc --noEmit"',
  newQuestion: 'changelog_title',
} as const;

function edit(path: string, from: string, to: string): void {
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${path} does not contain ${from}`);
  writeFileSync(path, text.replace(from, to));
}

/**
 * Creates a throw-away template repository from the bundled actor template: v1.0.0 is the
 * template as it is, v1.1.0 rewrites a line of the system prompt, adds CHANGELOG.md (with a new
 * question, `changelog_title`), deletes src/main.deno.ts, changes src/main.bun.ts and adds a
 * script to package.json. Returns its path and the commit of each tag.
 */
export function createEvolvingTemplate(root: string): { dir: string; commits: Record<'v1.0.0' | 'v1.1.0', string> } {
  const dir = join(root, 'evolving-template');
  cpSync(BUNDLED_TEMPLATE, dir, { recursive: true });
  gitIn(dir, 'init', '--quiet', '--initial-branch=main');
  gitIn(dir, 'add', '--all');
  gitIn(dir, 'commit', '--quiet', '-m', 'v1.0.0');
  gitIn(dir, 'tag', 'v1.0.0');
  const files = join(dir, 'template');
  edit(join(files, 'src/prompts/system-prompt.ts.njk'), PROMPT_LINE_V1, PROMPT_LINE_V1_1);
  writeFileSync(
    join(files, 'CHANGELOG.md.njk'),
    '# {{ changelog_title }}\n\n## 1.1.0\n\n- Rendered from template v1.1.0.\n',
  );
  writeFileSync(
    join(dir, 'template.yml'),
    `${readFileSync(join(dir, 'template.yml'), 'utf8')}
changelog_title:
  type: str
  help: Title of CHANGELOG.md
  default: "{{ actor_name }} changelog"
`,
  );
  rmSync(join(files, 'src/main.deno.ts'));
  edit(
    join(files, 'src/main.bun.ts'),
    "import { serve } from 'actorkit/bun';",
    "// Run with `bun src/main.bun.ts`.\nimport { serve } from 'actorkit/bun';",
  );
  edit(
    join(files, 'package.json.njk'),
    '"emit": "actorkit validate . --write"',
    `"emit": "actorkit validate . --write",\n    ${V1_1.packageScript}`,
  );
  gitIn(dir, 'add', '--all');
  gitIn(dir, 'commit', '--quiet', '-m', 'v1.1.0');
  gitIn(dir, 'tag', 'v1.1.0');
  return {
    dir,
    commits: {
      'v1.0.0': gitIn(dir, 'rev-parse', 'v1.0.0^{commit}'),
      'v1.1.0': gitIn(dir, 'rev-parse', 'v1.1.0^{commit}'),
    },
  };
}
