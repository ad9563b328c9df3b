import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { summarizeCpuProfile } from '../../bench/profile/summarize-cpu-profile.js';

const dir = mkdtempSync(join(tmpdir(), 'actorkit-cpu-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('summarizeCpuProfile', () => {
  it('names a sample in a bundle by the source file and line it was built from, as the built entries are bundles', () => {
    // Two source files bundled into one chunk, as scripts/bundle-entries.mjs builds dist/src.
    mkdirSync(join(dir, 'src', 'store'), { recursive: true });
    writeFileSync(
      join(dir, 'src', 'store', 'read.ts'),
      'export function readRows(count: number): number[] {\n  const rows: number[] = [];\n  for (let i = 0; i < count; i += 1) rows.push(i * 2);\n  return rows;\n}\n',
    );
    writeFileSync(
      join(dir, 'src', 'index.ts'),
      "import { readRows } from './store/read.ts';\nexport const total = readRows(3).length;\n",
    );
    buildSync({
      entryPoints: [join(dir, 'src', 'index.ts')],
      outfile: join(dir, 'dist', 'src', 'chunks', 'chunk-TEST.js'),
      bundle: true,
      format: 'esm',
      sourcemap: true,
      sourcesContent: false,
      logLevel: 'silent',
    });
    const bundle = join(dir, 'dist', 'src', 'chunks', 'chunk-TEST.js');
    const lines = readFileSync(bundle, 'utf8').split('\n');
    const line = lines.findIndex((text) => text.includes('function readRows'));
    const column = lines[line]!.indexOf('function readRows');
    const url = pathToFileURL(bundle).href;
    const frame = (id: number, functionName: string, children: number[] = []) => ({
      id,
      callFrame: { functionName, url: id === 1 ? '' : url, lineNumber: line, columnNumber: column },
      children,
    });
    const profile = join(dir, 'run.cpuprofile');
    writeFileSync(
      profile,
      JSON.stringify({
        nodes: [frame(1, '(root)', [2]), frame(2, 'readRows')],
        samples: [2, 2, 2],
        timeDeltas: [1000, 1000, 1000],
      }),
    );

    const summary = summarizeCpuProfile(profile, 5);
    expect(summary.selfByFunction[0]).toMatchObject({ name: 'readRows src/store/read.ts:1', ms: 3 });
    expect(summary.selfByArea[0]).toMatchObject({ name: 'actorkit src/store', ms: 3 });
  });
});
