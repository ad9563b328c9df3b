// The files package.json `exports` names, as the build writes them: the one place the build's
// bundle step, the layer check, the house figures and the tests read the public entries from.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The built file of every subpath package.json `exports` names (`./dist/src/index.js`,
 * `./dist/cli/index.js`…), in the order it names them; `./package.json` itself is left out.
 * @param root the package's folder (default: the working directory)
 */
export function exportedFiles(root = '.') {
  const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.values(exports)
    .map((target) => (typeof target === 'string' ? target : target.default))
    .filter((target) => target.startsWith('./dist/'));
}
