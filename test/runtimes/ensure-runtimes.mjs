// Makes sure Node 24, Bun and Deno (npm packages pinned in this folder) are installed: a quick
// check when they are, `npm ci` here when one is missing or not the pinned version.
// Called by the root `pretest`. Never puts this folder's `node` on anyone's PATH. Then installs
// the test-only package folders (test/kubernetes) with that Node 24.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureFolderPackages } from './ensure-folder-packages.mjs';
import { INSTALLED_RUNTIMES, RUNTIMES_DIR, runtimeVersion } from './runtime-binaries.mjs';

const stale = () => INSTALLED_RUNTIMES.filter((runtime) => runtimeVersion(runtime.path) !== runtime.pinned);

let missing = stale();
if (missing.length > 0) {
  console.log(`[runtimes] installing ${missing.map((runtime) => `${runtime.package}@${runtime.pinned}`).join(', ')}: npm ci in ${RUNTIMES_DIR} (about 10 s, ~400 MB)`);
  // npm run exports npm_config_* of the outer project; the nested install must use its own folder's.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_(config|package|lifecycle)_/i.test(key)));
  try {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: RUNTIMES_DIR, env, stdio: 'inherit' });
  } catch (error) {
    console.error(`[runtimes] npm ci failed in ${RUNTIMES_DIR}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  missing = stale();
  if (missing.length > 0) {
    console.error(`[runtimes] still missing after npm ci: ${missing.map((runtime) => `${runtime.package}@${runtime.pinned} (${runtime.path})`).join(', ')}`);
    process.exit(1);
  }
}
console.log(`[runtimes] ${INSTALLED_RUNTIMES.map((runtime) => `${runtime.package} ${runtime.pinned}`).join(', ')} ready`);
// The test-only package folders, installed with the Node 24 just made sure of.
ensureFolderPackages([fileURLToPath(new URL('../kubernetes', import.meta.url))], 'kubernetes');
