import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Options of `assertNoForbiddenVerbs`. */
export interface ForbiddenVerbOptions {
  /**
   * Folders below the actor's source root to scan, in order. Default `['agent/tools']`; pass the
   * domain module first (`['weather', 'agent/tools']`) to match the template's scope.
   */
  readonly scannedDirs?: readonly string[];
}

/** One public callable or tool name that carries a forbidden verb. */
export interface ForbiddenVerbHit {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly verb: string;
  readonly kind: 'callable' | 'tool';
}

const SOURCE_FILE = /\.(ts|mts|js|mjs)$/;
const TEST_FILE = /\.(test|spec)\.[mc]?[jt]s$/;
const PUBLIC_CALLABLE = [
  /export\s+(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/g,
  /export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>/g,
  /export\s+(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/g,
  /^\s+(?:public\s+)?(?:static\s+)?(?:async\s+)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::[^{;]+)?\{/gm,
];
const TOOL_NAME = /\bname\s*:\s*['"`]([\w.-]+)['"`]/g;
const NOT_METHODS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'constructor']);

/** Splits `deleteUser`, `delete_user` or `user-delete` into lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

function sourceFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'node_modules' ? [] : sourceFiles(path);
    return SOURCE_FILE.test(entry) && !TEST_FILE.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

/** Finds the public callables and tool names under `root` whose words include a forbidden verb. */
export function findForbiddenVerbs(
  root: string,
  verbs: readonly string[],
  options: ForbiddenVerbOptions = {},
): ForbiddenVerbHit[] {
  const forbidden = new Set(verbs.map((verb) => verb.toLowerCase()));
  const hits: ForbiddenVerbHit[] = [];
  const dirs = options.scannedDirs ?? ['agent/tools'];
  for (const dir of dirs) {
    for (const file of sourceFiles(join(root, dir))) {
      const text = readFileSync(file, 'utf8');
      const lineOf = (index: number) => text.slice(0, index).split('\n').length;
      const check = (name: string, index: number, kind: ForbiddenVerbHit['kind']) => {
        if (kind === 'callable' && (NOT_METHODS.has(name) || name.startsWith('_') || name.startsWith('#'))) return;
        const verb = nameWords(name).find((word) => forbidden.has(word));
        if (verb !== undefined) hits.push({ file: relative(root, file), line: lineOf(index), name, verb, kind });
      };
      for (const pattern of PUBLIC_CALLABLE)
        for (const match of text.matchAll(pattern)) check(match[1]!, match.index, 'callable');
      for (const match of text.matchAll(TOOL_NAME)) check(match[1]!, match.index, 'tool');
    }
  }
  const unique = new Map(hits.map((hit) => [`${hit.file}:${hit.line}:${hit.name}`, hit]));
  return [...unique.values()];
}

/**
 * Asserts that no public callable and no tool name under the scanned folders offers a
 * forbidden capability (a verb such as `delete`, `send` or `pay` among its words).
 * @param root the actor's source root (e.g. `src`)
 * @param verbs the forbidden verbs
 * @example
 * assertNoForbiddenVerbs('src', ['delete', 'transfer'], { scannedDirs: ['weather', 'agent/tools'] });
 */
export function assertNoForbiddenVerbs(
  root: string,
  verbs: readonly string[],
  options: ForbiddenVerbOptions = {},
): void {
  const dirs = options.scannedDirs ?? ['agent/tools'];
  const scanned = dirs.flatMap((dir) => sourceFiles(join(root, dir)));
  if (scanned.length === 0)
    throw new Error(
      `No source files found under ${dirs.map((dir) => join(root, dir)).join(', ')}: check the path and scannedDirs`,
    );
  const hits = findForbiddenVerbs(root, verbs, options);
  if (hits.length > 0) {
    throw new Error(
      `Forbidden capabilities found:\n${hits.map((hit) => `- ${hit.file}:${hit.line} ${hit.kind} ${hit.name} (verb "${hit.verb}")`).join('\n')}`,
    );
  }
}
