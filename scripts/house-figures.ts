/**
 * The shape of a checkout in figures, to compare two commits of a redesign (issue #36): non-test
 * source files and lines under src/, cli/ and platform/ (the local platform, cli/platform/ before), functions over 60 lines, files of 20 lines or
 * fewer, the source files one JSON chat request runs code in, the code lines that spell each
 * model provider's name, each core route's path and the `Idempotency-Key` header, and the
 * imports from cli/ and platform/ into src/ modules that are not public entries (package.json `exports`).
 *
 * Run: `npx tsx scripts/house-figures.ts [--repo DIR]` (default: this checkout; DIR needs its
 * dependencies installed, tsx among them). Prints JSON.
 *
 * "Files a chat request crosses" is measured, not read: the example actor, from its TypeScript
 * sources under tsx (the built entries are bundles, one file for many modules), is served on
 * loopback in a child process under V8's precise coverage; after one warm-up invoke the counters
 * are reset, one more `POST /agent/invoke` is answered as JSON, and every `src/` file with a
 * function that ran during it is counted.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { exportedFiles } from './package-exports.mjs';

const { values: options } = parseArgs({ options: { repo: { type: 'string', default: '.' } } });
const repo = resolve(options.repo);

const tracked = execFileSync('git', ['ls-files', 'src', 'cli', 'platform'], { cwd: repo, encoding: 'utf8' })
  .split('\n')
  .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts'));
const sources = new Map(tracked.map((path) => [path, readFileSync(join(repo, path), 'utf8')]));
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Functions (declarations, methods, arrows, expressions, accessors) spanning more than 60 lines. */
function longFunctions(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > 60) found.push(`${path}:${start + 1} (${end - start + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The lines of code (comments left out) of the non-test sources that contain `needle`. */
function codeLinesWith(needle: string | RegExp, exceptFile?: (path: string) => boolean): string[] {
  const hits: string[] = [];
  for (const [path, text] of sources) {
    if (exceptFile?.(path)) continue;
    text.split('\n').forEach((line, index) => {
      const code = line.trim();
      if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
      if (typeof needle === 'string' ? code.includes(needle) : needle.test(code)) hits.push(`${path}:${index + 1}`);
    });
  }
  return hits;
}

/** Which core route files declare which paths (`path: '/…'` beside `defineRoute`), read from the source. */
function routePaths(): Map<string, string> {
  const byPath = new Map<string, string>();
  for (const [path, text] of sources) {
    if (!text.includes('defineRoute(')) continue;
    for (const match of text.matchAll(/path: '(\/[^']*)'/g)) byPath.set(match[1]!, path);
  }
  return byPath;
}

/** The package's public entries, as its package.json `exports` names them (`./dist/src/index.js` → `src/index.ts`). */
const PUBLIC_ENTRIES = new Set(
  exportedFiles(repo).map((target) => target.slice('./dist/'.length).replace(/\.js$/, '.ts')),
);

/** Imports (static and `import()`) from cli/ and platform/ that resolve to a src/ module other than a public entry. */
function internalCliImports(): string[] {
  const found: string[] = [];
  for (const [path, text] of sources) {
    if (!path.startsWith('cli/') && !path.startsWith('platform/')) continue;
    for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)) {
      const target = relative(repo, resolve(repo, dirname(path), match[1]!)).replace(/\.js$/, '.ts');
      if (target.startsWith('src/') && !PUBLIC_ENTRIES.has(target)) found.push(`${path} -> ${target}`);
    }
  }
  return found;
}

/** The `src/` files one JSON invoke runs code in, measured on the example actor's sources (see the file's JSDoc). */
function filesOneInvokeCrosses(): string[] {
  const child = `
    import { Session } from 'node:inspector/promises';
    import { mkdtempSync } from 'node:fs';
    import { tmpdir } from 'node:os';
    import { join } from 'node:path';
    process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'house-figures-'));
    process.env.LOG_LEVEL = 'error';
    const repo = ${JSON.stringify(repo)};
    const { serve } = await import(repo + '/src/adapter/node/index.ts');
    const { createApp } = await import(repo + '/examples/hello-actor/src/app.ts');
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    const server = await serve(createApp, { port: 0, hostname: '127.0.0.1', signals: false });
    const invoke = (n) => fetch(server.url + '/agent/invoke', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'figures', session_id: 's' + n, message: 'hello' }),
    }).then(async (response) => { if (!response.ok) throw new Error(response.status + ' ' + await response.text()); });
    await invoke(1);
    await session.post('Profiler.takePreciseCoverage');
    await invoke(2);
    const { result } = await session.post('Profiler.takePreciseCoverage');
    const files = result.filter((script) => script.url.startsWith('file://' + repo + '/src/') && script.functions.some((f) => f.ranges[0].count > 0))
      .map((script) => script.url.slice(('file://' + repo + '/').length).replace(/\\?.*$/, ''));
    await server.close();
    console.log(JSON.stringify(files.sort()));
    process.exit(0);
  `;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child], {
    cwd: repo,
    encoding: 'utf8',
  });
  return JSON.parse(output.trim().split('\n').at(-1)!) as string[];
}

const texts = [...sources.entries()];
const long = texts.flatMap(([path, text]) => longFunctions(path, text));
const small = texts.filter(([, text]) => lineCount(text) <= 20).map(([path]) => path);
const paths = routePaths();
/** A path as written in code: in a string, not followed by more of a path (`/stats` is not `/stats/{tenant_id}`). */
const pathInCode = (path: string) => new RegExp(`['"\`]([A-Z]+ )?${path.replace(/[{}.]/g, '\\$&')}(?![\\w/{.-])`);
const pathPlaces = Object.fromEntries(
  [...paths]
    .filter(([path]) => path !== '/')
    .map(([path, routeFile]) => [path, codeLinesWith(pathInCode(path), (file) => file === routeFile).length]),
);
const crossed = filesOneInvokeCrosses();
const cliImports = internalCliImports();
console.log(
  JSON.stringify(
    {
      repo,
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim(),
      files: sources.size,
      lines: texts.reduce((sum, [, text]) => sum + lineCount(text), 0),
      functionsOver60Lines: long.length,
      filesOf20LinesOrFewer: small.length,
      filesOneJsonInvokeCrosses: crossed.length,
      providerNamePlaces: {
        'openai-compatible': codeLinesWith("'openai-compatible'").length,
        offline: codeLinesWith("'offline'").length,
      },
      routePathPlacesOutsideItsRoute: pathPlaces,
      // Where the invoke path is spelled at all, its definition included (the route may name it by a constant).
      invokePathLiteralPlaces: codeLinesWith(pathInCode('/agent/invoke')).length,
      idempotencyKeyHeaderPlaces: codeLinesWith(/idempotency-key/i).length,
      cliInternalImports: {
        imports: cliImports.length,
        modules: new Set(cliImports.map((line) => line.split(' -> ')[1])).size,
      },
      detail: { long, crossed },
    },
    null,
    2,
  ),
);
