import { readFileSync } from 'node:fs';

interface HeapSnapshotFile {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: readonly string[];
      readonly node_types: readonly [readonly string[], ...unknown[]];
    };
  };
  readonly nodes: readonly number[];
  readonly strings: readonly string[];
}

/** How many heap objects of one kind a snapshot holds and their own size in bytes. */
export interface HeapGroup {
  readonly count: number;
  readonly selfBytes: number;
}

/** One kind of object whose count or size changed between two snapshots. */
export interface HeapGrowth {
  readonly name: string;
  readonly countDelta: number;
  readonly selfBytesDelta: number;
}

/**
 * The objects of a `.heapsnapshot` (v8.writeHeapSnapshot) grouped by kind: an object by its
 * constructor name, a closure as `(closure) <function>`, anything else by its V8 node type
 * (`(string)`, `(code)`, `(array)` …).
 * @param path the snapshot file
 */
export function summarizeHeapSnapshot(path: string): Map<string, HeapGroup> {
  const file = JSON.parse(readFileSync(path, 'utf8')) as HeapSnapshotFile;
  const fields = file.snapshot.meta.node_fields;
  const types = file.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => {
    const index = fields.indexOf(field);
    if (index === -1) throw new Error(`${path}: heap snapshot nodes have no ${field} field`);
    return index;
  }) as [number, number, number];
  const groups = new Map<string, { count: number; selfBytes: number }>();
  for (let node = 0; node < file.nodes.length; node += fields.length) {
    const type = types[file.nodes[node + typeAt]!]!;
    const name = file.strings[file.nodes[node + nameAt]!]!;
    const key = type === 'object' ? name : type === 'closure' ? `(closure) ${name}` : `(${type})`;
    const group = groups.get(key) ?? { count: 0, selfBytes: 0 };
    group.count += 1;
    group.selfBytes += file.nodes[node + sizeAt]!;
    groups.set(key, group);
  }
  return groups;
}

/**
 * The kinds of object that grew most in own size from `earlier` to `later`, largest first.
 * @param earlier groups of the first snapshot
 * @param later groups of the second snapshot
 * @param top how many to return
 */
export function heapGrowth(
  earlier: ReadonlyMap<string, HeapGroup>,
  later: ReadonlyMap<string, HeapGroup>,
  top: number,
): HeapGrowth[] {
  const names = new Set([...earlier.keys(), ...later.keys()]);
  const growth = [...names].map((name) => {
    const before = earlier.get(name) ?? { count: 0, selfBytes: 0 };
    const after = later.get(name) ?? { count: 0, selfBytes: 0 };
    return { name, countDelta: after.count - before.count, selfBytesDelta: after.selfBytes - before.selfBytes };
  });
  return growth.sort((a, b) => b.selfBytesDelta - a.selfBytesDelta).slice(0, top);
}
