import { readFile, stat } from 'node:fs/promises';
import { CliError } from '../cli/library.js';
import { refuseExposedFile } from './refuse-exposed-file.js';

/** The secrets the local platform fills `${secret:NAME}` from, read from one file. */
export interface SecretsFile {
  /** The file's absolute path. */
  readonly path: string;
  /** Whether the file exists (a default file that is absent holds no secret). */
  readonly present: boolean;
  /** The value of each secret, by name. Never printed or logged. */
  readonly values: ReadonlyMap<string, string>;
}

const LINE = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

/** A value without its quotes: `"a b"` and `'a b'` are `a b`; an unquoted value is trimmed. */
function unquote(raw: string): string {
  const value = raw.trim();
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) return value.slice(1, -1);
  return value;
}

/**
 * Reads a secrets file of `NAME=value` lines (`#` comments, blank lines, `export ` and quotes
 * allowed). A file that group or others may read (its mode is not 0600 or stricter) is refused
 * with code `secrets_file_exposed`, before a byte of it is read; a line that is not `NAME=value`
 * is refused naming its number, never its content. An absent file is refused (`secrets_file_missing`)
 * when `required`, else it holds no secret.
 * @param path the file's absolute path
 * @param required whether the user named the file (`--secrets`)
 */
export async function readSecretsFile(path: string, required: boolean): Promise<SecretsFile> {
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (required) throw new CliError('refused', 'secrets_file_missing', `the secrets file ${path} does not exist`);
    return { path, present: false, values: new Map() };
  }
  refuseExposedFile(path, mode, 'the secrets file');
  const values = new Map<string, string>();
  const lines = (await readFile(path, 'utf8')).split(/\r?\n/);
  lines.forEach((line, index) => {
    const text = line.trim();
    if (text === '' || text.startsWith('#')) return;
    const match = LINE.exec(text);
    if (match === null)
      throw new CliError(
        'refused',
        'secrets_file_invalid',
        `the secrets file ${path}, line ${index + 1}: expected NAME=value (the line is not shown: it may hold a secret)`,
      );
    values.set(match[1] as string, unquote(match[2] as string));
  });
  return { path, present: true, values };
}
