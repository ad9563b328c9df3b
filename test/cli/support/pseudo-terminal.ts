import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '../../..');

/** One scripted keystroke: when the output so far ends with `after`, type `keys`. */
export interface TerminalStep {
  readonly after: string;
  readonly keys: string;
}

/**
 * Runs `actorkit <args>` from the sources (tsx) inside a pseudo-terminal made by util-linux
 * `script`, typing each step's keys once its prompt has appeared; resolves the exit code and
 * everything the terminal showed. The terminal is stopped after `timeoutMs` (default 15 seconds).
 */
export function runInTerminal(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; steps: readonly TerminalStep[]; timeoutMs?: number },
): Promise<{ code: number | null; output: string }> {
  const entry = resolve(REPOSITORY_ROOT, 'cli', 'main.ts');
  const tsx = pathToFileURL(resolve(REPOSITORY_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const command = [process.execPath, '--import', tsx, entry, ...args]
    .map((part) => `'${part.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: options.cwd,
    env: { ...options.env, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const steps = [...options.steps];
  let output = '';
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    const next = steps[0];
    if (next && output.trimEnd().endsWith(next.after.trimEnd())) {
      steps.shift();
      child.stdin.write(next.keys);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  // A prompt that never comes must fail the test, not hang it: stop the terminal in the end.
  const timer = setTimeout(() => child.kill(), options.timeoutMs ?? 15_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, output });
    }),
  );
}
