import { spawn } from 'node:child_process';

/** What `runCommand` needs besides the command line: the environment from `writeEngineConfig`, a folder, a bound. */
export interface RunCommandOptions {
  /** The whole environment of the command (`writeEngineConfig`'s answer). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The working folder; the test process's when left out. */
  readonly cwd?: string;
  /** Kills the command (SIGKILL) and rejects after this long; 120 s when left out. */
  readonly timeoutMs?: number;
}

/**
 * Runs a container tool (`podman`, `buildah`, `skopeo`…) with plain arguments, without blocking
 * the event loop, and resolves with its standard output; a non-zero exit or the time-out rejects
 * with the command line and the last 4,000 characters of its output.
 * @param command the program, e.g. `podman`
 * @param args its arguments, e.g. `['push', '127.0.0.1:5000/demo:1']`
 * @param options environment, working folder and time bound
 * @example await runCommand('podman', ['build', '-f', 'Dockerfile', '-t', tag, dir], { env })
 */
export function runCommand(command: string, args: readonly string[], options: RunCommandOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const commandLine = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${commandLine} did not start: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else {
        const why = signal === 'SIGKILL' ? `was killed after ${timeoutMs} ms` : `exited with ${code ?? signal}`;
        reject(new Error(`${commandLine} ${why}\n${output.slice(-4_000)}`));
      }
    });
  });
}
