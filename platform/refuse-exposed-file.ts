import { CliError } from '../cli/library.js';

/**
 * Refuses (`secrets_file_exposed`) a file of secrets that group or others may read, naming its
 * mode and the `chmod` that fixes it; a file only its owner may read passes.
 * @param file the file's path
 * @param mode its `stat` mode
 * @param what what the file is, e.g. `the secrets file`
 */
export function refuseExposedFile(file: string, mode: number, what: string): void {
  if ((mode & 0o077) === 0) return;
  const shown = (mode & 0o777).toString(8).padStart(4, '0');
  throw new CliError(
    'refused',
    'secrets_file_exposed',
    `${what} ${file} is readable by others (mode ${shown}): run chmod 600 ${file}`,
  );
}
