import { readFileSync } from 'node:fs';
import { codeArea, frameName, originalCallFrame } from './summarize-cpu-profile.js';

interface AllocationNode {
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
    readonly columnNumber?: number;
  };
  readonly selfSize: number;
  readonly children: readonly AllocationNode[];
}

/** Bytes allocated by one function or one code area. */
export interface AllocationEntry {
  readonly name: string;
  readonly bytes: number;
}

/** Where the bytes of a sampling heap profile (HeapProfiler.stopSampling) were allocated. */
export interface AllocationSummary {
  readonly totalBytes: number;
  /** Bytes allocated by the function itself, highest first. */
  readonly selfByFunction: readonly AllocationEntry[];
  /** Bytes allocated by the function and everything it called, highest first. */
  readonly totalByFunction: readonly AllocationEntry[];
  /** Bytes allocated by code of an npm package, a folder of actorkit, or the runtime. */
  readonly selfByArea: readonly AllocationEntry[];
}

const sorted = (totals: Map<string, number>, limit: number): AllocationEntry[] =>
  [...totals.entries()]
    .filter(([, bytes]) => bytes > 0)
    .sort(([, a], [, b]) => b - a)
    .slice(0, limit)
    .map(([name, bytes]) => ({ name, bytes }));

/**
 * Reads a sampling heap profile taken with collected objects included, so its sizes are every
 * byte allocated (V8 scales the samples), not what is still live, and attributes them like
 * bench/profile/summarize-cpu-profile.ts attributes time.
 * @param path the profile (JSON of `{ head, samples }`)
 * @param limit how many entries each list keeps
 */
export function summarizeAllocationProfile(path: string, limit = 25): AllocationSummary {
  const { head } = JSON.parse(readFileSync(path, 'utf8')) as { head: AllocationNode };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  const add = (totals: Map<string, number>, name: string, bytes: number) =>
    totals.set(name, (totals.get(name) ?? 0) + bytes);
  let totalBytes = 0;
  /** Walks the tree; returns the bytes under `node` and adds them to each frame once per path. */
  const walk = (node: AllocationNode, onPath: ReadonlySet<string>): number => {
    const callFrame = originalCallFrame(node.callFrame);
    const name = frameName({ callFrame });
    let bytes = node.selfSize;
    const path = onPath.has(name) ? onPath : new Set([...onPath, name]);
    for (const child of node.children) bytes += walk(child, path);
    add(self, name, node.selfSize);
    add(areas, callFrame.url === '' ? `(native) ${callFrame.functionName}` : codeArea(callFrame.url), node.selfSize);
    if (!onPath.has(name)) add(inclusive, name, bytes);
    totalBytes += node.selfSize;
    return bytes;
  };
  walk(head, new Set());
  return {
    totalBytes,
    selfByFunction: sorted(self, limit),
    totalByFunction: sorted(inclusive, limit),
    selfByArea: sorted(areas, limit),
  };
}
