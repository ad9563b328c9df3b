import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const BLOCK = 512;

/** One entry of a tar archive, as far as extracting regular files needs it. */
interface TarEntry {
  readonly path: string;
  readonly type: string;
  readonly mode: number;
  readonly data: Buffer;
}

/**
 * Extracts the regular files of a gzipped tar archive (an `npm pack` tarball) whose paths `keep`
 * accepts into `destDir`, keeping their executable bits. Paths are taken below the archive's top
 * folder (`package/` in an npm tarball, whatever its name). Links, devices and paths that would
 * land outside `destDir` are skipped, never followed. Returns the extracted paths.
 * @param tarball path of the `.tgz` file.
 * @param destDir the folder to extract into (created when missing).
 * @param keep which paths to extract, e.g. those under `templates/actor/`.
 */
export async function extractTarball(
  tarball: string,
  destDir: string,
  keep: (path: string) => boolean,
): Promise<string[]> {
  const archive = await promisify(gunzip)(await readFile(tarball));
  const extracted: string[] = [];
  for (const entry of readTarEntries(archive)) {
    const path = entry.path.replace(/^[^/]+\//, '');
    if (entry.type !== '0' || path === entry.path || !keep(path)) continue;
    const target = resolve(destDir, path);
    if (!target.startsWith(resolve(destDir) + sep)) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, entry.data, { mode: entry.mode & 0o111 ? 0o755 : 0o644 });
    extracted.push(path);
  }
  return extracted;
}

/** The entries of an uncompressed tar archive (ustar, with pax and GNU long names), regular files typed `0`. */
function* readTarEntries(archive: Buffer): Generator<TarEntry> {
  let longPath: string | undefined;
  for (let offset = 0; offset + BLOCK <= archive.length; ) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return;
    const size = readSize(header.subarray(124, 136));
    const data = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    const flag = String.fromCharCode(header[156] ?? 0);
    if (flag === 'x') {
      longPath = paxPath(data) ?? longPath;
      continue;
    }
    if (flag === 'L') {
      longPath = text(data);
      continue;
    }
    if (flag === 'g') continue;
    const name = text(header.subarray(0, 100));
    const prefix = header.subarray(257, 262).toString('latin1') === 'ustar' ? text(header.subarray(345, 500)) : '';
    const path = longPath ?? (prefix ? `${prefix}/${name}` : name);
    longPath = undefined;
    yield {
      path,
      type: flag === '\0' ? '0' : flag,
      mode: Number.parseInt(text(header.subarray(100, 108)) || '0', 8),
      data,
    };
  }
}

/** A header's size field: octal text, or base-256 when its high bit is set. */
function readSize(field: Buffer): number {
  if ((field[0] ?? 0) & 0x80) return field.subarray(1).reduce((size, byte) => size * 256 + byte, 0);
  return Number.parseInt(text(field) || '0', 8);
}

/** The `path` record of a pax extended header (`<length> path=<value>\n`). */
function paxPath(data: Buffer): string | undefined {
  for (const record of data.toString('utf8').split('\n')) {
    const match = /^\d+ path=(.*)$/s.exec(record);
    if (match) return match[1];
  }
  return undefined;
}

function text(field: Buffer): string {
  const end = field.indexOf(0);
  return field
    .subarray(0, end === -1 ? field.length : end)
    .toString('utf8')
    .trim();
}
