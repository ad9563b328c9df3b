import { createReadStream } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { createGunzip } from 'node:zlib';
import { CliError } from '../cli-error.js';

const BLOCK = 512;
const MiB = 1024 * 1024;

/** The largest single entry a tarball may hold: a template file is kilobytes; more is not a template. */
export const TARBALL_ENTRY_LIMIT_BYTES = 16 * MiB;
/** The most a whole tarball may unpack to (every entry, kept or not, with its headers). */
export const TARBALL_TOTAL_LIMIT_BYTES = 256 * MiB;

/** The header of one tar entry, as far as extracting regular files needs it. */
interface TarHeader {
  readonly path: string;
  /** `0` for a regular file, else the tar type flag. */
  readonly type: string;
  readonly mode: number;
  readonly size: number;
}

/** Reads a stream in pieces of chosen lengths, holding at most one incoming chunk at a time. */
function pieceReader(source: AsyncIterator<Buffer>) {
  let pending: Buffer = Buffer.alloc(0);
  return {
    /** Passes the next `bytes` bytes to `onPiece` as they come; false when the stream ended first. */
    async take(bytes: number, onPiece: (piece: Buffer) => unknown): Promise<boolean> {
      let left = bytes;
      while (left > 0) {
        if (pending.length === 0) {
          const next = await source.next();
          if (next.done) return false;
          pending = next.value;
          continue;
        }
        const piece = pending.subarray(0, left);
        pending = pending.subarray(piece.length);
        left -= piece.length;
        await onPiece(piece);
      }
      return true;
    },
    /** The next `bytes` bytes in one buffer (headers, pax records), or undefined at the end. */
    async read(bytes: number): Promise<Buffer | undefined> {
      const pieces: Buffer[] = [];
      return (await this.take(bytes, (piece) => pieces.push(piece))) ? Buffer.concat(pieces) : undefined;
    },
  };
}

/** The `tarball_too_large` refusal for `entry`. */
function tooLarge(entry: string, why: string): CliError {
  return new CliError('failed', 'tarball_too_large', `the tarball's entry ${entry} ${why}: not extracted`);
}

/**
 * Extracts the regular files of a gzipped tar archive (an `npm pack` tarball) whose paths `keep`
 * accepts into `destDir`, keeping their executable bits. The archive is read as a stream, each
 * file written as it is unpacked: nothing larger than one chunk is held in memory. An entry over
 * {@link TARBALL_ENTRY_LIMIT_BYTES}, or an archive unpacking to more than
 * {@link TARBALL_TOTAL_LIMIT_BYTES}, is refused with the `failed` {@link CliError}
 * `tarball_too_large` naming the entry. Paths are taken below the archive's top folder
 * (`package/` in an npm tarball, whatever its name). Links, devices and paths that would land
 * outside `destDir` are skipped, never followed. Returns the extracted paths.
 * @param tarball path of the `.tgz` file.
 * @param destDir the folder to extract into (created when missing).
 * @param keep which paths to extract, e.g. those under `templates/actor/`.
 */
export async function extractTarball(
  tarball: string,
  destDir: string,
  keep: (path: string) => boolean,
): Promise<string[]> {
  const gunzip = createGunzip();
  const file = createReadStream(tarball);
  file.once('error', (error) => gunzip.destroy(error));
  file.pipe(gunzip);
  const unpacked = gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    return await extractEntries(pieceReader(unpacked), destDir, keep);
  } finally {
    file.destroy();
    gunzip.destroy();
  }
}

async function extractEntries(
  reader: ReturnType<typeof pieceReader>,
  destDir: string,
  keep: (path: string) => boolean,
): Promise<string[]> {
  const extracted: string[] = [];
  let unpackedBytes = 0;
  for (let longPath: string | undefined; ; ) {
    const block = await reader.read(BLOCK);
    if (block === undefined || block.every((byte) => byte === 0)) return extracted;
    const header = readHeader(block, longPath);
    longPath = undefined;
    const padded = Math.ceil(header.size / BLOCK) * BLOCK;
    if (header.size > TARBALL_ENTRY_LIMIT_BYTES)
      throw tooLarge(
        header.path,
        `is ${header.size} bytes, over the ${TARBALL_ENTRY_LIMIT_BYTES}-byte limit of one entry`,
      );
    unpackedBytes += BLOCK + padded;
    if (unpackedBytes > TARBALL_TOTAL_LIMIT_BYTES)
      throw tooLarge(header.path, `takes the archive over ${TARBALL_TOTAL_LIMIT_BYTES} bytes unpacked`);
    if (header.type === 'x' || header.type === 'L') {
      const data = (await reader.read(padded))?.subarray(0, header.size);
      if (data === undefined) throw new Error(`the tarball ends inside the header of ${header.path}`);
      longPath = header.type === 'x' ? (paxPath(data) ?? longPath) : text(data);
      continue;
    }
    const path = header.path.replace(/^[^/]+\//, '');
    const target = resolve(destDir, path);
    const wanted =
      header.type === '0' && path !== header.path && keep(path) && target.startsWith(resolve(destDir) + sep);
    if (!wanted) {
      if (!(await reader.take(padded, () => undefined))) throw new Error(`the tarball ends inside ${header.path}`);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    const file = await open(target, 'w', header.mode & 0o111 ? 0o755 : 0o644);
    try {
      let left = header.size;
      const complete = await reader.take(padded, async (piece) => {
        const data = piece.subarray(0, Math.max(0, Math.min(piece.length, left)));
        left -= piece.length;
        if (data.length > 0) await file.write(data);
      });
      if (!complete) throw new Error(`the tarball ends inside ${header.path}`);
    } finally {
      await file.close();
    }
    extracted.push(path);
  }
}

/** One header block (ustar, with pax and GNU long names carried over as `longPath`). */
function readHeader(header: Buffer, longPath: string | undefined): TarHeader {
  const flag = String.fromCharCode(header[156] ?? 0);
  const name = text(header.subarray(0, 100));
  const prefix = header.subarray(257, 262).toString('latin1') === 'ustar' ? text(header.subarray(345, 500)) : '';
  return {
    path: longPath ?? (prefix ? `${prefix}/${name}` : name),
    type: flag === '\0' ? '0' : flag,
    mode: Number.parseInt(text(header.subarray(100, 108)) || '0', 8),
    size: readSize(header.subarray(124, 136)),
  };
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
