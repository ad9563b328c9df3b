import { spawn } from 'node:child_process';

/**
 * Runs `sh -c <command>` without blocking the event loop (the fake registry serves from this
 * process), resolving with its output; a non-zero exit rejects with `<where> <command> exited
 * with <code>` and the last 4,000 characters of its output.
 * @param command a shell command line
 * @param options the working folder, the whole environment, and what to call the step in errors
 */
export function runShell(
  command: string,
  options: { cwd: string; env: Readonly<Record<string, string | undefined>>; where: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${options.where} ${command} exited with ${code}\n${output.slice(-4_000)}`));
    });
  });
}
