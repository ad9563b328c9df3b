import type { Ignore } from '@balena/dockerignore';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';

// A CommonJS module whose types declare an ES default export: load it as Node does.
const dockerignore = createRequire(import.meta.url)('@balena/dockerignore') as () => Ignore;

/** The files a container build can see: a folder minus what its `.dockerignore` excludes. */
export interface BuildContext {
  readonly dir: string;
  /** Whether the path (relative to the context, POSIX separators) is sent to the builder. */
  includes(path: string): boolean;
  /**
   * The context paths a `COPY` source names: the path itself, or every top-level match of a
   * wildcard (`package-lock.json*`), sorted; excluded paths are not there.
   */
  match(source: string): string[];
}

/**
 * Reads the build context rooted at `dir`: `.dockerignore` is applied with @balena/dockerignore,
 * a port of Docker's own matcher (Go `filepath.Match` rules, anchored at the context root, `!`
 * exceptions, a pattern excluding a folder excludes what is under it). `COPY` sources are
 * matched with the same rules, as Docker does.
 * @param dir the build context (the actor folder)
 */
export function readBuildContext(dir: string): BuildContext {
  const ignoreFile = join(dir, '.dockerignore');
  const ignored = dockerignore().add(existsSync(ignoreFile) ? readFileSync(ignoreFile, 'utf8').split(/\r?\n/) : []);
  const includes = (path: string) => path === '' || !ignored.ignores(path);
  return {
    dir,
    includes,
    match(source) {
      const path = source.replace(/^(\.\/|\/)+/, '').replace(/\/+$/, '');
      if (!/[*?[]/.test(path)) return existsSync(join(dir, path)) && includes(path) ? [path] : [];
      const pattern = dockerignore().add(path);
      const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
      const candidates = existsSync(join(dir, parent))
        ? readdirSync(join(dir, parent)).map((name) => (parent ? `${parent}/${name}` : name))
        : [];
      return candidates.filter((candidate) => pattern.ignores(candidate) && includes(candidate)).sort();
    },
  };
}

/**
 * Every file under `from` that the context includes, relative to the context root.
 * @param context the build context
 * @param from a folder inside it
 */
export function contextFilesUnder(context: BuildContext, from: string): string[] {
  return readdirSync(from, { withFileTypes: true }).flatMap((entry) => {
    const path = join(from, entry.name);
    const inContext = relative(context.dir, path).split(sep).join('/');
    if (!context.includes(inContext)) return [];
    return entry.isDirectory() ? contextFilesUnder(context, path) : [inContext];
  });
}
