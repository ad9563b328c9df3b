// Bundles the package's runtime entries after `tsc` (the second half of `npm run build`): each
// src/ file that package.json `exports` names (`./dist/src/index.js` ← `src/index.ts`) is
// rebuilt by esbuild from the TypeScript sources as one module that holds actorkit's own code,
// written over tsc's output at the same path, with the code two entries share in
// `dist/src/chunks/` (so `actorkit` and `actorkit/node` share one copy of every module) and
// each lazy `import()` of actorkit's own files kept lazy as a chunk of its own. Dependencies stay
// imports resolved in node_modules (hono, libsql, valibot…), except Kysely (BUNDLED_PACKAGES).
// Why: a start of the actor loaded about 230 files of actorkit and 260 of Kysely one by one,
// about half of its cold start (docs/performance.md, "Issue 43: cold start, the entries
// bundled"). tsc's other files under dist/src stay; the type declarations are tsc's, unchanged.
// Run: `node scripts/bundle-entries.mjs` from the package root, after tsc (`npm run build` does).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { exportedFiles } from './package-exports.mjs';

/** `./dist/src/sdk/index.js` → `sdk/index`, the entry's path under dist/src without `.js`. */
const entries = exportedFiles()
  .filter((target) => target.startsWith('./dist/src/'))
  .map((target) => target.slice('./dist/src/'.length, -'.js'.length));

/**
 * Packages bundled in: Kysely, which actorkit uses only inside its store (no public type or
 * function takes or gives a Kysely object) and whose 260 files were the other third of a start.
 */
const BUNDLED_PACKAGES = new Set(['kysely']);
/** `@scope/name/sub` → `@scope/name`; `hono/utils` → `hono`. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
/**
 * Every other bare import (a dependency, an optional peer, the user's vitest for actorkit/testing,
 * `bun:sqlite`) stays an import, resolved where the code runs, as tsc's output left it.
 */
const packagesStayImports = {
  name: 'packages-stay-imports',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path }) =>
      BUNDLED_PACKAGES.has(packageOf(path)) ? undefined : { path, external: true },
    );
  },
};

const { outputFiles } = await build({
  entryPoints: Object.fromEntries(entries.map((entry) => [entry, `src/${entry}.ts`])),
  outdir: 'dist/src',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  plugins: [packagesStayImports],
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
  write: false,
});
// Each changed file is replaced whole (written beside, then renamed over) and the chunks of an
// earlier build are removed only after, so an actor starting while a build runs (`npm install -g .`
// runs `prepare`, which builds: a test installs actorkit so while others start actors) never finds
// an entry or a chunk missing or half written.
const CHUNKS = 'dist/src/chunks';
const written = new Set();
/** The file's bytes, or undefined when there is none. */
const current = (path) => {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
};
/** Writes `contents` to `path` whole, unless the file holds them already. */
const replace = (path, contents) => {
  written.add(relative(CHUNKS, path));
  if (current(path)?.equals(contents)) return; // a build with nothing changed writes nothing
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
};
for (const { path, contents } of outputFiles) replace(path, contents);
// A bundled package's code ships inside actorkit's files: its licence goes with it.
for (const name of BUNDLED_PACKAGES)
  replace(resolve(CHUNKS, `${name}.LICENSE`), readFileSync(`node_modules/${name}/LICENSE`));
for (const stale of readdirSync(CHUNKS).filter((file) => !written.has(file))) rmSync(join(CHUNKS, stale), { force: true });
