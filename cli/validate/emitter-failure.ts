import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findSourceMap } from 'node:module';
import type { ActorProblem } from './actor-problem.js';

const DEFINITION = 'src/actor.ts';

/**
 * Turns an error of the configuration emitter into the one problem `validate` prints, pointing at
 * the real cause: a package that is not installed gets the `npm install` hint; an error raised by
 * the actor's code (a `ReferenceError`, a `platformField` misuse, a syntax error) gets the file,
 * line and column in the actor's TypeScript source, taken from the source-mapped stack trace.
 * @param error what `emitPlatformConfig` threw.
 * @param actorRoot the actor's absolute folder.
 * @param shownDir the actor folder as the user named it, for the hint.
 */
export function emitterFailureProblem(error: unknown, actorRoot: string, shownDir: string): ActorProblem {
  const chain = causeChain(error);
  const shorten = (text: string) =>
    text.replaceAll(`file://${actorRoot}${sep}`, '').replaceAll(`${actorRoot}${sep}`, '');
  const missing = chain.map(missingPackage).find((found) => found !== undefined);
  if (missing !== undefined) {
    const declared = declaredDependencies(actorRoot).has(missing.name);
    return {
      rule: 'emitter',
      pointer: '',
      message: `package '${missing.name}' is not installed (imported from ${shorten(missing.importer)})`,
      hint: declared
        ? `run \`npm install\` in ${shownDir}`
        : `it is not in package.json: run \`npm install ${missing.name}\` in ${shownDir}`,
    };
  }
  const cause = chain.at(-1) as Error;
  const located = chain.map((link) => codeLocation(link, actorRoot)).find((found) => found !== undefined);
  if (located !== undefined) {
    return {
      rule: 'emitter',
      pointer: '',
      message: `loading ${DEFINITION} failed at ${located.location}: ${located.what ?? errorText(cause, shorten)}`,
      location: located.location,
    };
  }
  return { rule: 'emitter', pointer: '', message: `the configuration emitter failed: ${shorten(messageOf(error))}` };
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let link = error;
    link !== undefined && link !== null && !chain.includes(link);
    link = (link as { cause?: unknown }).cause
  ) {
    chain.push(link);
  }
  return chain;
}

/** A package the module loader could not find: `Cannot find package 'x'`, or a file inside `node_modules` (a broken install). */
function missingPackage(error: unknown): { name: string; importer: string } | undefined {
  if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const message = String((error as Error).message);
  const importer = /imported from (.+)$/m.exec(message)?.[1] ?? DEFINITION;
  const named = /Cannot find package '([^']+)'/.exec(message)?.[1];
  if (named !== undefined) return { name: named, importer };
  const installed = /Cannot find module '[^']*[\\/]node_modules[\\/]((?:@[^\\/']+[\\/])?[^\\/']+)/.exec(message)?.[1];
  return installed === undefined ? undefined : { name: installed.replace('\\', '/'), importer };
}

function declaredDependencies(actorRoot: string): Set<string> {
  try {
    const manifest = JSON.parse(readFileSync(join(actorRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    const groups = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
    return new Set(
      groups.flatMap((group) => Object.keys((manifest[group] as Record<string, unknown> | undefined) ?? {})),
    );
  } catch {
    return new Set();
  }
}

/**
 * Where an error sits in the actor's own code (not its `node_modules`): the location of an
 * esbuild syntax error, the `file:line` head of a module-linking error, else the first stack
 * frame inside the actor folder, mapped back to the `.ts` source (see {@link sourceMapped}).
 */
function codeLocation(error: unknown, actorRoot: string): { location: string; what?: string } | undefined {
  const inActor = (file: string, line: number | string, column?: number | string) => {
    const path = relative(actorRoot, file.startsWith('file://') ? fileURLToPath(file) : file);
    if (path === '' || path.startsWith('..') || isAbsolute(path) || path.split(sep).includes('node_modules'))
      return undefined;
    return `${path.split(sep).join('/')}:${line}${column === undefined ? '' : `:${column}`}`;
  };
  const message = messageOf(error);
  const syntax = /^(\/\S+?):(\d+):(\d+): ERROR: (.+)$/m.exec(message);
  if (syntax !== null) {
    const location = inActor(syntax[1]!, syntax[2]!, Number(syntax[3]) + 1);
    if (location !== undefined) return { location, what: `syntax error: ${syntax[4]}` };
  }
  const stack = typeof (error as Error | undefined)?.stack === 'string' ? (error as Error).stack! : '';
  const head = /^((?:file:\/\/)?\/\S+?):(\d+)\n/.exec(stack);
  if (head !== null) {
    const location = inActor(head[1]!, head[2]!);
    if (location !== undefined) return { location };
  }
  for (const line of stack.split('\n')) {
    const frame = /^\s+at (?:.*? \()?((?:file:\/\/)?\/.+?):(\d+):(\d+)\)?$/.exec(line);
    if (frame === null) continue;
    const origin = sourceMapped(frame[1]!, Number(frame[2]), Number(frame[3]));
    const location = inActor(origin.file, origin.line, origin.column);
    if (location !== undefined) return { location };
  }
  return undefined;
}

/**
 * Maps a stack frame of a module tsx compiled back to its TypeScript source. Node does this
 * itself when source maps are on and nothing replaced `Error.prepareStackTrace`; otherwise the
 * frame names the compiled module (`actor.ts?tsx-namespace=…:1:572`), whose source map Node kept
 * because {@link withSourceMaps} was on while it loaded.
 */
function sourceMapped(file: string, line: number, column: number): { file: string; line: number; column: number } {
  const origin = findSourceMap(file)?.findOrigin(line, column);
  if (origin === undefined || !('fileName' in origin)) return { file: file.replace(/\?.*$/, ''), line, column };
  return { file: origin.fileName, line: origin.lineNumber, column: origin.columnNumber };
}

/**
 * Runs `work` with Node's source maps on, so that the modules it loads keep theirs for
 * {@link emitterFailureProblem}; the previous setting is restored afterwards.
 * @param work what loads the actor's code.
 */
export async function withSourceMaps<T>(work: () => Promise<T>): Promise<T> {
  const previous = process.sourceMapsEnabled;
  process.setSourceMapsEnabled(true);
  try {
    return await work();
  } finally {
    process.setSourceMapsEnabled(previous);
  }
}

/** `ReferenceError: x is not defined`; a plain `Error` shows its message only. */
function errorText(error: unknown, shorten: (text: string) => string): string {
  const message = shorten(messageOf(error).split('\n')[0] ?? '');
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name !== 'string' || name === 'Error' || name === '' ? message : `${name}: ${message}`;
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : String(error);
}
