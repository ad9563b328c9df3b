import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createGzip, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { extractTarball, TARBALL_ENTRY_LIMIT_BYTES, TARBALL_TOTAL_LIMIT_BYTES } from './extract-tarball.js';

const scratch = mkdtempSync(join(tmpdir(), 'actorkit-extract-tarball-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A ustar header block for `path` (regular file unless `type` says otherwise) followed by its data blocks. */
function tarEntry(path: string, data: string, type = '0', mode = 0o644): Buffer {
  const body = Buffer.alloc(Math.ceil(Buffer.byteLength(data) / 512) * 512);
  body.write(data, 'utf8');
  return Buffer.concat([tarHeader(path, Buffer.byteLength(data), type, mode), body]);
}

/** A ustar header block for an entry of `size` bytes. */
function tarHeader(path: string, size: number, type = '0', mode = 0o644): Buffer {
  const header = Buffer.alloc(512);
  header.write(path, 0, 100, 'utf8');
  header.write(`${mode.toString(8).padStart(7, '0')}\0`, 100, 'latin1');
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write(type, 156, 'latin1');
  header.write('ustar\u000000', 257, 'latin1');
  header.write('        ', 148, 'latin1');
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return header;
}

const MiB = 1024 * 1024;

/** Writes a `.tgz` of entries made of zeros (`[path, bytes]`), streamed through gzip one reused MiB at a time: megabytes on disk, far more unpacked. */
async function writeZerosTgz(name: string, entries: ReadonlyArray<readonly [string, number]>): Promise<string> {
  const path = join(scratch, name);
  const gzip = createGzip({ level: 1 });
  const done = once(gzip.pipe(createWriteStream(path)), 'finish');
  const zeros = Buffer.alloc(MiB);
  const write = async (chunk: Buffer) => {
    if (!gzip.write(chunk)) await once(gzip, 'drain');
  };
  for (const [entry, bytes] of entries) {
    await write(tarHeader(entry, bytes));
    for (let left = Math.ceil(bytes / 512) * 512; left > 0; left -= MiB)
      await write(zeros.subarray(0, Math.min(MiB, left)));
  }
  gzip.end(Buffer.alloc(1024));
  await done;
  return path;
}

/** Runs `extractTarball` in a child process; its outcome and its peak RSS (bytes). */
function extractInChild(tarball: string, dest: string): { outcome: string; maxRssBytes: number } {
  const script = `
    import { extractTarball } from ${JSON.stringify(new URL('./extract-tarball.ts', import.meta.url).pathname)};
    const outcome = await extractTarball(${JSON.stringify(tarball)}, ${JSON.stringify(dest)}, (path) => path.startsWith('templates/'))
      .then((paths) => 'extracted ' + paths.join(','), (error) => error.code + ': ' + error.message);
    console.log(JSON.stringify({ outcome, maxRssBytes: process.resourceUsage().maxRSS * 1024 }));`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? 'null');
}

function writeTgz(name: string, entries: Buffer[]): string {
  const path = join(scratch, name);
  writeFileSync(path, gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)])));
  return path;
}

describe('extractTarball', () => {
  it('extracts the kept files below the top folder, with their executable bit, from a tarball GNU tar wrote (pax long names)', async () => {
    const source = join(scratch, 'source', 'package');
    const deep = join('templates', 'actor', 'template', 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(join(source, deep), { recursive: true });
    writeFileSync(join(source, deep, 'long-name.txt.njk'), 'deep\n');
    writeFileSync(join(source, 'templates', 'actor', 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(join(source, 'README.md'), 'not kept\n');
    symlinkSync('/etc/passwd', join(source, 'templates', 'actor', 'link'));
    const tarball = join(scratch, 'gnu.tgz');
    execFileSync('tar', ['--format=pax', '-czf', tarball, '-C', join(scratch, 'source'), 'package']);
    const dest = join(scratch, 'gnu-out');
    const extracted = await extractTarball(tarball, dest, (path) => path.startsWith('templates/'));
    expect(extracted.sort()).toEqual(['templates/actor/run.sh', join(deep, 'long-name.txt.njk')]);
    expect(readFileSync(join(dest, deep, 'long-name.txt.njk'), 'utf8')).toBe('deep\n');
    expect(statSync(join(dest, 'templates/actor/run.sh')).mode & 0o111).not.toBe(0);
    expect(existsSync(join(dest, 'README.md'))).toBe(false);
    expect(existsSync(join(dest, 'templates/actor/link'))).toBe(false);
  });

  it('skips entries that would land outside the folder, links and files beside the top folder', async () => {
    const tarball = writeTgz('hostile.tgz', [
      tarEntry('package/../../escaped.txt', 'out\n'),
      tarEntry('package/templates/../../../escaped-too.txt', 'out\n'),
      tarEntry('package/templates/link', '', '2'),
      tarEntry('top-level.txt', 'beside\n'),
      tarEntry('package/templates/ok.txt', 'ok\n'),
    ]);
    const dest = join(scratch, 'hostile-out', 'inner');
    const extracted = await extractTarball(tarball, dest, () => true);
    expect(extracted).toEqual(['templates/ok.txt']);
    expect(existsSync(join(scratch, 'hostile-out', 'escaped.txt'))).toBe(false);
    expect(existsSync(join(scratch, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(scratch, 'escaped-too.txt'))).toBe(false);
  });

  it(`refuses an entry over ${TARBALL_ENTRY_LIMIT_BYTES / MiB} MiB with tarball_too_large naming it, before reading it`, async () => {
    const tarball = await writeZerosTgz('one-huge-entry.tgz', [
      ['package/templates/actor/template.yml', 10],
      ['package/templates/actor/huge.bin', TARBALL_ENTRY_LIMIT_BYTES + 1],
    ]);
    await expect(extractTarball(tarball, join(scratch, 'huge-out'), () => true)).rejects.toMatchObject({
      code: 'tarball_too_large',
      message: `the tarball's entry package/templates/actor/huge.bin is ${TARBALL_ENTRY_LIMIT_BYTES + 1} bytes, over the ${TARBALL_ENTRY_LIMIT_BYTES}-byte limit of one entry: not extracted`,
    });
    expect(existsSync(join(scratch, 'huge-out', 'templates/actor/huge.bin'))).toBe(false);
  });

  it(`refuses an archive unpacking to over ${TARBALL_TOTAL_LIMIT_BYTES / MiB} MiB, streaming it with bounded memory`, async () => {
    // 20 entries of 15 MiB of zeros: each under the entry limit, 300 MiB in all, a few hundred KB gzipped.
    const entries = Array.from({ length: 20 }, (_, index) => [`package/zeros-${index}.bin`, 15 * MiB] as const);
    const tarball = await writeZerosTgz('zeros.tgz', [['package/templates/actor/kept.bin', 15 * MiB], ...entries]);
    expect(statSync(tarball).size).toBeLessThan(2 * MiB);
    const { outcome, maxRssBytes } = extractInChild(tarball, join(scratch, 'zeros-out'));
    expect(outcome).toBe(
      `tarball_too_large: the tarball's entry package/zeros-16.bin takes the archive over ${TARBALL_TOTAL_LIMIT_BYTES} bytes unpacked: not extracted`,
    );
    // The kept entry before the refusal was streamed to disk whole.
    expect(statSync(join(scratch, 'zeros-out', 'templates/actor/kept.bin')).size).toBe(15 * MiB);
    // Holding the archive (or one entry) in memory would add at least 256 MiB (15 MiB) to a ~100 MiB child.
    expect(maxRssBytes, `peak RSS ${Math.round(maxRssBytes / MiB)} MiB`).toBeLessThan(200 * MiB);
  }, 60_000);

  it('rejects a file that is not gzip with an error, not a crash', async () => {
    const path = join(scratch, 'not-gzip.tgz');
    writeFileSync(path, 'plain text');
    await expect(extractTarball(path, join(scratch, 'nothing'), () => true)).rejects.toThrow(/header/);
  });
});
