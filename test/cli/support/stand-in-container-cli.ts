import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A fake container CLI on PATH that records each call's argv as one JSON line. */
export interface StandInContainerCli {
  /** The folder to put first on PATH. */
  readonly binDir: string;
  /** Every call so far, as argv arrays (without the executable). */
  calls(): string[][];
  /** The environment to run the CLI with: PATH first, the log file, and `extra` (`STAND_IN_FAIL`, `STAND_IN_EXISTING`). */
  env(extra?: Record<string, string>): Record<string, string | undefined>;
}

/**
 * Writes stand-ins named `names` (default `docker`) into `root/bin`; each appends its argv to
 * `root/calls.jsonl`, prints a line on stdout and one on stderr, and exits 3 when its first
 * argument equals `STAND_IN_FAIL`. `manifest inspect <image>` (docker) and `inspect --raw
 * docker://<image>` (skopeo) play a registry that holds the comma-separated images of
 * `STAND_IN_EXISTING`: exit 0 for those, 1 ("no such manifest") otherwise.
 */
export function createStandInContainerCli(root: string, names: readonly string[] = ['docker']): StandInContainerCli {
  const binDir = join(root, 'bin');
  const log = join(root, 'calls.jsonl');
  mkdirSync(binDir, { recursive: true });
  for (const name of names) {
    const path = join(binDir, name);
    writeFileSync(
      path,
      `#!${process.execPath}
const args = process.argv.slice(2);
require('node:fs').appendFileSync(process.env.STAND_IN_LOG, JSON.stringify(args) + '\\n');
const probed = args[0] === 'manifest' ? args[2] : args[0] === 'inspect' ? args[2].replace(/^docker:\\/\\//, '') : undefined;
if (probed !== undefined && !(process.env.STAND_IN_EXISTING ?? '').split(',').includes(probed)) {
  console.error('no such manifest: ' + probed);
  process.exit(1);
}
console.log('stand-in ${name} ' + args[0] + ' output');
console.error('stand-in ${name} ' + args[0] + ' progress');
if (process.env.STAND_IN_FAIL === args[0]) process.exit(3);
`,
    );
    chmodSync(path, 0o755);
  }
  return {
    binDir,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line))
        : [],
    env: (extra = {}) => ({
      PATH: `${binDir}:${process.env.PATH}`,
      HOME: process.env.HOME,
      STAND_IN_LOG: log,
      ...extra,
    }),
  };
}
