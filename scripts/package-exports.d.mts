/**
 * The built file of every subpath package.json `exports` names (`./dist/src/index.js`,
 * `./dist/cli/index.js`…), in the order it names them; `./package.json` itself is left out.
 * @param root the package's folder (default: the working directory)
 */
export declare function exportedFiles(root?: string): string[];
