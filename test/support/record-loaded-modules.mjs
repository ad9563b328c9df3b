// `node --import ./record-loaded-modules.mjs entry.js` appends the URL of every module the
// process loads through the ESM loader (its own files, packages, built-ins) to the file named
// by LOADED_MODULES_FILE, one a line, before the module runs. The same file is the loader hook:
// on the main thread it registers itself; on the hooks thread it exports `initialize` and `load`.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

let file;

/** Receives the file to append to (the hooks thread). */
export function initialize(data) {
  file = data.file;
}

/** Appends the URL, then loads the module as usual. */
export async function load(url, context, nextLoad) {
  appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}

if (isMainThread) {
  const target = process.env.LOADED_MODULES_FILE;
  if (!target) throw new Error('record-loaded-modules.mjs: set LOADED_MODULES_FILE to the file that receives the loaded URLs');
  register(import.meta.url, { data: { file: target } });
}
