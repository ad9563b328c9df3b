// Installs the packages a test- or bench-only folder pins (its own package.json and
// package-lock.json), kept out of the root project so actorkit's own install neither grows nor
// warns: a quick check when every pinned version is there, `npm ci` in the folder otherwise, run
// with test/runtimes' Node 24 first on the PATH (some of these packages ask for Node >= 22).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { INSTALLED_RUNTIMES } from './runtime-binaries.mjs';

const pinned = (folder) => Object.entries(JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).dependencies);
const installedVersion = (folder, name) => {
  const file = join(folder, 'node_modules', name, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : null;
};
const stale = (folder) => pinned(folder).filter(([name, version]) => installedVersion(folder, name) !== version);

/**
 * Makes sure each folder's pinned packages are installed; exits the process with 1 when `npm ci`
 * fails or leaves one missing. Needs test/runtimes installed first (ensure-runtimes.mjs).
 * @param {readonly string[]} folders absolute paths of folders with a package.json and package-lock.json
 * @param {string} label the prefix of its lines, e.g. `bench`
 */
export function ensureFolderPackages(folders, label) {
  const node24 = INSTALLED_RUNTIMES.find((runtime) => runtime.name === 'node24');
  for (const folder of folders) {
    if (stale(folder).length === 0) continue;
    console.log(`[${label}] npm ci in ${folder} (Node 24 from test/runtimes)`);
    // npm run exports npm_config_* of the outer project; the nested install must use its own folder's.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_(config|package|lifecycle)_/i.test(key)));
    env.PATH = `${dirname(node24.path)}:${env.PATH ?? ''}`;
    try {
      execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: folder, env, stdio: 'inherit' });
    } catch (error) {
      console.error(`[${label}] npm ci failed in ${folder}: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }
    const missing = stale(folder);
    if (missing.length > 0) {
      console.error(`[${label}] still missing after npm ci in ${folder}: ${missing.map(([name, version]) => `${name}@${version}`).join(', ')}`);
      process.exit(1);
    }
  }
  console.log(`[${label}] ${folders.map((folder) => pinned(folder).map(([name, version]) => `${name} ${version}`).join(', ')).join('; ')} ready`);
}
