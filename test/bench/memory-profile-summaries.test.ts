import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summarizeAllocationProfile } from '../../bench/profile/summarize-allocation-profile.js';
import { heapGrowth, summarizeHeapSnapshot } from '../../bench/profile/summarize-heap-snapshot.js';

const dir = mkdtempSync(join(tmpdir(), 'actorkit-memory-summaries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeJson(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

/** A heap snapshot of `[type, name, selfSize]` nodes, in V8's flat layout. */
function snapshot(name: string, nodes: readonly [string, string, number][]): string {
  const types = ['hidden', 'array', 'string', 'object', 'code', 'closure'];
  const strings: string[] = [];
  const stringIndex = (text: string) => (strings.includes(text) ? strings.indexOf(text) : strings.push(text) - 1);
  const flat = nodes.flatMap(([type, nodeName, size], id) => [
    types.indexOf(type),
    stringIndex(nodeName),
    id,
    size,
    0,
    0,
    0,
  ]);
  return writeJson(name, {
    snapshot: {
      meta: {
        node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
        node_types: [types, 'string', 'number'],
      },
    },
    nodes: flat,
    strings,
  });
}

describe('summarizeHeapSnapshot and heapGrowth', () => {
  it('groups objects by constructor, closures by function and the rest by type, and ranks what grew', () => {
    const earlier = summarizeHeapSnapshot(
      snapshot('a.heapsnapshot', [
        ['object', 'Session', 100],
        ['string', 'x', 20],
        ['closure', 'onData', 32],
      ]),
    );
    const later = summarizeHeapSnapshot(
      snapshot('b.heapsnapshot', [
        ['object', 'Session', 100],
        ['object', 'Session', 100],
        ['object', 'Session', 100],
        ['string', 'y', 20],
        ['string', 'z', 24],
        ['closure', 'onData', 32],
      ]),
    );
    expect(earlier.get('Session')).toEqual({ count: 1, selfBytes: 100 });
    expect(later.get('(string)')).toEqual({ count: 2, selfBytes: 44 });
    expect(later.get('(closure) onData')).toEqual({ count: 1, selfBytes: 32 });
    expect(heapGrowth(earlier, later, 2)).toEqual([
      { name: 'Session', countDelta: 2, selfBytesDelta: 200 },
      { name: '(string)', countDelta: 1, selfBytesDelta: 24 },
    ]);
  });

  it('names the missing field of a snapshot it cannot read', () => {
    const path = writeJson('bad.heapsnapshot', {
      snapshot: { meta: { node_fields: ['type', 'name'], node_types: [['object']] } },
      nodes: [],
      strings: [],
    });
    expect(() => summarizeHeapSnapshot(path)).toThrow(/no self_size field/);
  });
});

describe('summarizeAllocationProfile', () => {
  const frame = (functionName: string, url: string) => ({
    functionName,
    url,
    lineNumber: 0,
    columnNumber: 0,
    scriptId: '0',
  });
  it('attributes bytes to functions (self and inclusive, a recursive frame counted once) and to code areas', () => {
    const recurse = { callFrame: frame('walk', 'file:///app/dist/src/store/sql-store.js'), selfSize: 10, children: [] };
    const path = writeJson('profile.heapprofile', {
      head: {
        callFrame: frame('(root)', ''),
        selfSize: 0,
        children: [
          {
            callFrame: frame('walk', 'file:///app/dist/src/store/sql-store.js'),
            selfSize: 30,
            children: [
              recurse,
              {
                callFrame: frame('parse', 'file:///app/node_modules/kysely/dist/esm/a.js'),
                selfSize: 50,
                children: [],
              },
            ],
          },
          { callFrame: frame('split', ''), selfSize: 7, children: [] },
        ],
      },
      samples: [],
    });
    const summary = summarizeAllocationProfile(path);
    expect(summary.totalBytes).toBe(97);
    expect(summary.selfByFunction.find((entry) => entry.name.startsWith('walk'))?.bytes).toBe(40);
    expect(summary.totalByFunction.find((entry) => entry.name.startsWith('walk'))?.bytes).toBe(90);
    expect(summary.selfByArea).toEqual([
      { name: 'kysely', bytes: 50 },
      { name: 'actorkit src/store', bytes: 40 },
      { name: '(native) split', bytes: 7 },
    ]);
  });
});
