import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './median.js';

/** Wall time of the CLI verbs against `node -e 0`, or why they were not measured. */
export type CliTiming =
  | { readonly status: 'skipped'; readonly reason: string }
  | {
      readonly status: 'measured';
      readonly runs: number;
      /** Median wall time of `node -e 0`, in ms: the floor any Node CLI pays. */
      readonly nodeBaselineMs: number;
      readonly verbs: readonly {
        readonly command: string;
        readonly medianMs: number;
        readonly ratio: number;
        readonly exitCodes: readonly number[];
      }[];
    };

function timed(args: readonly string[], cwd: string): { ms: number; exitCode: number; output: string } {
  const env = { ...process.env };
  delete env.ACTORKIT_TEMPLATE_REPO; // the bundled template, not a repository
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { ms: performance.now() - started, exitCode: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

/**
 * Gives a rendered actor a `node_modules` as `npm install` would (without the network): each
 * package of the checkout's node_modules linked in, and `actorkit` linked to the checkout.
 */
function linkDependencies(actorDir: string, repositoryRoot: string): void {
  const modules = join(actorDir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(repositoryRoot, 'node_modules')))
    symlinkSync(join(repositoryRoot, 'node_modules', name), join(modules, name));
  symlinkSync(repositoryRoot, join(modules, 'actorkit'));
}

/**
 * Times `actorkit new <name> <dir> --defaults` (bundled template) and `actorkit validate <dir>`
 * on what it rendered (dependencies linked as after `npm install`), `runs` times each, as
 * ratios to `node -e 0`. Skipped until the CLI is
 * built (`dist/cli/main.js`) and the bundled template (`templates/actor/template.yml`) exists.
 * @param repositoryRoot the actorkit checkout
 * @param runs how many times each command runs (the median is kept)
 */
export function measureCli(repositoryRoot: string, runs: number): CliTiming {
  const cli = join(repositoryRoot, 'dist', 'cli', 'main.js');
  if (!existsSync(cli)) return { status: 'skipped', reason: 'CLI not built yet (dist/cli/main.js is missing)' };
  if (!existsSync(join(repositoryRoot, 'templates', 'actor', 'template.yml'))) {
    return { status: 'skipped', reason: 'CLI not built yet (the bundled template templates/actor is missing)' };
  }
  const workDir = mkdtempSync(join(tmpdir(), 'actorkit-bench-cli-'));
  try {
    const baseline = Array.from({ length: runs }, () => timed(['-e', '0'], workDir).ms);
    const nodeBaselineMs = median(baseline);
    const renders = Array.from({ length: runs }, (_, index) =>
      timed([cli, 'new', 'bench-actor', join(workDir, `actor-${index}`), '--defaults'], workDir),
    );
    if (renders[0]!.exitCode === 0) linkDependencies(join(workDir, 'actor-0'), repositoryRoot);
    const validations = Array.from({ length: runs }, () => timed([cli, 'validate', join(workDir, 'actor-0')], workDir));
    const verb = (command: string, results: ReturnType<typeof timed>[]) => {
      const medianMs = median(results.map((result) => result.ms));
      return {
        command,
        medianMs: Math.round(medianMs),
        ratio: Math.round((medianMs / nodeBaselineMs) * 10) / 10,
        exitCodes: results.map((result) => result.exitCode),
      };
    };
    return {
      status: 'measured',
      runs,
      nodeBaselineMs: Math.round(nodeBaselineMs),
      verbs: [
        verb('actorkit new bench-actor <dir> --defaults', renders),
        verb('actorkit validate <dir> (dependencies installed)', validations),
      ],
    };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
