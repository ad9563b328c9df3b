// Makes sure the bench-only package folders are installed: bench/peers/mastra (the Mastra
// agent server of the peer comparison) and bench/drivers (better-sqlite3 for
// bench/turn-storage-limit.ts). A quick check when every pinned package is there, `npm ci` in
// the folder otherwise, run with test/runtimes' Node 24 first on the PATH (Mastra's engines ask
// for Node >= 22.13). Called by the root `prebench`, after test/runtimes/ensure-runtimes.mjs.
// Kept out of the root project so actorkit's own dependencies do not grow.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INSTALLED_RUNTIMES } from '../test/runtimes/runtime-binaries.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
/** The bench-only folders, each with its own package.json and package-lock.json. */
const FOLDERS = [join(BENCH_DIR, 'peers', 'mastra'), join(BENCH_DIR, 'drivers')];
const node24 = INSTALLED_RUNTIMES.find((runtime) => runtime.name === 'node24');

const pinned = (folder) => Object.entries(JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).dependencies);
const installedVersion = (folder, name) => {
  const file = join(folder, 'node_modules', name, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : null;
};
const stale = (folder) => pinned(folder).filter(([name, version]) => installedVersion(folder, name) !== version);

for (const folder of FOLDERS) {
  if (stale(folder).length === 0) continue;
  console.log(`[bench] npm ci in ${folder} (Node 24 from test/runtimes)`);
  // npm run exports npm_config_* of the outer project; the nested install must use its own folder's.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_(config|package|lifecycle)_/i.test(key)));
  env.PATH = `${dirname(node24.path)}:${env.PATH ?? ''}`;
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: folder, env, stdio: 'inherit' });
  } catch (error) {
    console.error(`[bench] npm ci failed in ${folder}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const missing = stale(folder);
  if (missing.length > 0) {
    console.error(`[bench] still missing after npm ci in ${folder}: ${missing.map(([name, version]) => `${name}@${version}`).join(', ')}`);
    process.exit(1);
  }
}
console.log(`[bench] ${FOLDERS.map((folder) => pinned(folder).map(([name, version]) => `${name} ${version}`).join(', ')).join('; ')} ready`);
