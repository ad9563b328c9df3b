import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { valid } from 'semver';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { extractTarball } from './extract-tarball.js';

/** The template bundled with one published actorkit version, extracted from its npm tarball. */
export interface FetchedBundledTemplate {
  /** Stands in for that version's package root: holds `templates/actor/` and `Dockerfile.template`. */
  readonly packageRoot: string;
  /** `<packageRoot>/templates/actor`. */
  readonly templateDir: string;
}

/** The archive paths a bundled-template render reads: the template and the package's Dockerfile recipe. */
const TEMPLATE_PREFIX = 'templates/actor/';
const DOCKERFILE_PATH = 'Dockerfile.template';

/**
 * Fetches the template bundled with `actorkit@<version>` from the npm registry the user's npm is
 * set to (`npm pack`, run in `cwd` so a project `.npmrc` and `npm_config_registry` count), and
 * extracts only `templates/actor/` and `Dockerfile.template` from the tarball. A missing npm, a
 * version the registry does not have and a tarball without the template are `failed` {@link CliError}s.
 * @param version the actorkit version an actor's answers file records.
 * @param workDir an empty folder to download and extract into; the caller removes it.
 * @param io the environment and working folder npm runs with.
 */
export async function fetchBundledTemplate(version: string, workDir: string, io: Pick<CliIo, 'env' | 'cwd'>): Promise<FetchedBundledTemplate> {
  if (valid(version) === null) {
    throw new CliError('refused', 'invalid_answers_file', `.actorkit-answers.yml records actorkit_version '${version}', which is not a version: cannot tell which template rendered this actor`);
  }
  const downloads = join(workDir, 'download');
  await mkdir(downloads, { recursive: true });
  const packed = await npmPack(`actorkit@${version}`, downloads, io);
  const packageRoot = join(workDir, 'package');
  const extracted = await extractTarball(join(downloads, packed), packageRoot, (path) => path.startsWith(TEMPLATE_PREFIX) || path === DOCKERFILE_PATH).catch((error: unknown) => {
    throw new CliError('failed', 'npm_pack_failed', `the tarball npm fetched for actorkit@${version} cannot be read: ${(error as Error).message}`, { cause: error });
  });
  const templateDir = join(packageRoot, 'templates', 'actor');
  if (!extracted.some((path) => path.startsWith(TEMPLATE_PREFIX)) || !existsSync(join(templateDir, 'template.yml'))) {
    throw new CliError('failed', 'bundled_template_missing', `actorkit@${version} from the npm registry has no templates/actor/template.yml: its template cannot be rendered again`);
  }
  return { packageRoot, templateDir };
}

/** Runs `npm pack <spec> --json` into `destination` and returns the tarball's file name. */
function npmPack(spec: string, destination: string, io: Pick<CliIo, 'env' | 'cwd'>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['pack', spec, '--pack-destination', destination, '--json', '--ignore-scripts'],
      { cwd: io.cwd, env: { ...io.env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') {
          return reject(new CliError('failed', 'npm_missing', `npm is not on PATH: it is needed to fetch the template of ${spec} from the npm registry`, { cause: error }));
        }
        const output = parseJson(stdout);
        const filename = Array.isArray(output) ? (output[0] as { filename?: unknown } | undefined)?.filename : undefined;
        if (!error && typeof filename === 'string') return resolve(filename);
        const npmError = (output as { error?: { code?: unknown; summary?: unknown } } | undefined)?.error;
        const summary = typeof npmError?.summary === 'string' ? npmError.summary : npmErrorLines(stderr);
        if (npmError?.code === 'ETARGET' || npmError?.code === 'E404') {
          return reject(new CliError('failed', 'template_version_unavailable', `the npm registry has no ${spec} (${summary}); point npm at the registry that has it (npm_config_registry or .npmrc)`, { cause: error }));
        }
        reject(new CliError('failed', 'npm_pack_failed', `npm pack ${spec} failed: ${summary || 'no output'}`, { cause: error }));
      },
    );
  });
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
  return lines.slice(0, 3).map((line) => line.slice('npm error '.length)).join(' ');
}
