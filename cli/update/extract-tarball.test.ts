import { execFileSync } from 'node:child_process';
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
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { extractTarball } from './extract-tarball.js';

const scratch = mkdtempSync(join(tmpdir(), 'actorkit-extract-tarball-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A ustar header block for `path` (regular file unless `type` says otherwise) followed by its data blocks. */
function tarEntry(path: string, data: string, type = '0', mode = 0o644): Buffer {
  const header = Buffer.alloc(512);
  header.write(path, 0, 100, 'utf8');
  header.write(`${mode.toString(8).padStart(7, '0')}\0`, 100, 'latin1');
  header.write(`${Buffer.byteLength(data).toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write(type, 156, 'latin1');
  header.write('ustar\u000000', 257, 'latin1');
  header.write('        ', 148, 'latin1');
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  const body = Buffer.alloc(Math.ceil(Buffer.byteLength(data) / 512) * 512);
  body.write(data, 'utf8');
  return Buffer.concat([header, body]);
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

  it('rejects a file that is not gzip with an error, not a crash', async () => {
    const path = join(scratch, 'not-gzip.tgz');
    writeFileSync(path, 'plain text');
    await expect(extractTarball(path, join(scratch, 'nothing'), () => true)).rejects.toThrow(/header/);
  });
});
