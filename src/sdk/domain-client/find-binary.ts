import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Whether an executable named `name` is on `PATH`. Uses only `node:fs` and `node:path`, which
 * Node, Bun and Deno all provide; on Windows it also tries each `PATHEXT` extension.
 * @param name the binary, e.g. `ffmpeg`
 * @param env the environment to read `PATH` (and `PATHEXT`) from
 */
export function isBinaryOnPath(name: string, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  if (name === '' || name.includes('/') || name.includes('\\')) return false;
  const windows = process.platform === 'win32';
  const extensions = windows ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';')] : [''];
  const directories = (env.PATH ?? env.Path ?? '').split(delimiter).filter((directory) => directory !== '');
  return directories.some((directory) =>
    extensions.some((extension) => isExecutableFile(join(directory, name + extension), windows)),
  );
}

function isExecutableFile(path: string, windows: boolean): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (!windows) accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
