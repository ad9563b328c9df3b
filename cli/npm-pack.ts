import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './cli-error.js';
import type { CliIo } from './cli-io.js';

/**
 * Runs `npm pack <spec> --json --ignore-scripts` into `destination` and resolves with the tarball's
 * file name. `spec` is a registry spec (`actorkit@0.1.0`) or a package folder. A missing npm, a spec
 * the registry does not have (code `template_version_unavailable`) and any other npm failure
 * (`npm_pack_failed`, with npm's own first error lines) are `failed` {@link CliError}s.
 * @param spec what to pack.
 * @param destination the folder the tarball is written to.
 * @param io the environment and working folder npm runs with (a project `.npmrc` there counts).
 */
export function npmPack(spec: string, destination: string, io: Pick<CliIo, 'env' | 'cwd'>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['pack', spec, '--pack-destination', destination, '--json', '--ignore-scripts'],
      { cwd: io.cwd, env: { ...io.env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
          return reject(
            new CliError('failed', 'npm_missing', `npm is not on PATH: it is needed to pack ${spec}`, { cause: error }),
          );
        }
        const output = parseJson(stdout);
        const filename = Array.isArray(output)
          ? (output[0] as { filename?: unknown } | undefined)?.filename
          : undefined;
        if (!error && typeof filename === 'string') return resolve(filename);
        const npmError = (output as { error?: { code?: unknown; summary?: unknown } } | undefined)?.error;
        const summary = typeof npmError?.summary === 'string' ? npmError.summary : npmErrorLines(stderr);
        if (npmError?.code === 'ETARGET' || npmError?.code === 'E404') {
          return reject(
            new CliError(
              'failed',
              'template_version_unavailable',
              `the npm registry has no ${spec} (${summary}); point npm at the registry that has it (npm_config_registry or .npmrc)`,
              {
                cause: error,
              },
            ),
          );
        }
        reject(
          new CliError('failed', 'npm_pack_failed', `npm pack ${spec} failed: ${summary || 'no output'}`, {
            cause: error,
          }),
        );
      },
    );
  });
}

/**
 * The tarball `npm pack` makes of the package folder `root` (run in that folder, scripts ignored),
 * read into memory; the temporary folder it was packed into is removed. Fails as {@link npmPack}.
 * @param root the package folder.
 * @param io the environment npm runs with.
 */
export async function npmPackFolder(root: string, io: Pick<CliIo, 'env'>): Promise<Buffer> {
  const workDir = await mkdtemp(join(tmpdir(), 'actorkit-pack-'));
  try {
    const file = await npmPack(root, workDir, { env: io.env, cwd: root });
    return await readFile(join(workDir, file));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function npmErrorLines(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line.startsWith('npm error ') && !/^npm error\s+at /.test(line));
  return lines
    .slice(0, 3)
    .map((line) => line.slice('npm error '.length))
    .join(' ');
}
