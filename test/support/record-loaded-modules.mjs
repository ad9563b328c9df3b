// `node --import ./record-loaded-modules.mjs entry.js` appends the URL of every module the
// process loads through the ESM loader (its own files, packages, built-ins) to the file named
// by LOADED_MODULES_FILE, one a line, before the module runs. The same file is the loader hook:
// on the main thread it registers itself; on the hooks thread it exports `initialize` and `load`.
// On the main thread it also writes `intl:collator` the first time the process compares strings by
// locale (`localeCompare`, `Intl.Collator`): that loads ICU's collation data, about 8 ms of a start.
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
  noteFirstCollation(target);
}

/** Wraps `String.prototype.localeCompare` and `Intl.Collator` to write `intl:collator` on their first call. */
function noteFirstCollation(target) {
  let noted = false;
  const note = () => {
    if (!noted) appendFileSync(target, 'intl:collator\n');
    noted = true;
  };
  const { localeCompare } = String.prototype;
  String.prototype.localeCompare = function (...args) {
    note();
    return localeCompare.apply(this, args);
  };
  const { Collator } = Intl;
  Intl.Collator = new Proxy(Collator, {
    construct: (Target, args) => (note(), new Target(...args)),
    apply: (Target, self, args) => (note(), Reflect.apply(Target, self, args)),
  });
}
