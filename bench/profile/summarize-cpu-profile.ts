import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Where a sampled function is: its script's URL and its line and column there (0-based). */
interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
  readonly columnNumber?: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Time attributed to one function or one code area, in ms and as a share of the profile. */
export interface ProfileEntry {
  readonly name: string;
  readonly ms: number;
  readonly share: number;
}

/** Where the CPU time of a `.cpuprofile` (node --cpu-prof) went. */
export interface ProfileSummary {
  readonly totalMs: number;
  /** Time outside the program: `(idle)`, `(program)`, `(garbage collector)`. */
  readonly idleMs: number;
  /** Self time by function, highest first. */
  readonly selfByFunction: readonly ProfileEntry[];
  /** Inclusive time (the function and everything it called) by function, highest first. */
  readonly totalByFunction: readonly ProfileEntry[];
  /** Self time by code area: an npm package, a folder of actorkit, or the runtime itself. */
  readonly selfByArea: readonly ProfileEntry[];
}

/** The source map beside each script read so far (`<file>.js.map`), or null when it has none. */
const sourceMaps = new Map<string, SourceMap | null>();

function sourceMapOf(url: string): SourceMap | null {
  if (!url.startsWith('file://') || !url.endsWith('.js')) return null;
  let map = sourceMaps.get(url);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
    } catch {
      map = null;
    }
    sourceMaps.set(url, map);
  }
  return map;
}

/**
 * The frame in the source it was built from, when its script has a source map: actorkit's
 * entries are bundles (scripts/bundle-entries.mjs), so a sample in `dist/src/chunks/chunk-….js`
 * is named by its `src/….ts` file and line, and Kysely's code inside it by its own package.
 * Frames of scripts without a map are returned as they are.
 * @param frame the profile's call frame
 */
export function originalCallFrame(frame: CallFrame): CallFrame {
  const entry = sourceMapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber ?? 0);
  if (entry === undefined || !('originalSource' in entry)) return frame;
  return {
    functionName: frame.functionName,
    url: new URL(entry.originalSource, frame.url).href,
    lineNumber: entry.originalLine,
    columnNumber: entry.originalColumn,
  };
}

/** The code area of a script URL: `hono`, `actorkit src/routes`, `node:internal`, `(native)`. */
export function codeArea(url: string): string {
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const own = /\/(?:dist\/)?(src\/[^/]+|examples|cli)\//.exec(url);
  return own ? `actorkit ${own[1]}` : url.replace(/^file:\/\//, '');
}

/** A function's name with its file and line (`createApp hello-actor/src/app.js:12`), as the profile summaries list it. */
export function frameName(node: Pick<ProfileNode, 'callFrame'>): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where =
    url === ''
      ? ''
      : ` ${url.replace(/^.*\/(node_modules|dist)\//, '').replace(/^file:\/\/.*?\/(?=(src|examples|cli)\/)|^file:\/\//, '')}:${lineNumber + 1}`;
  return `${functionName || '(anonymous)'}${where}`;
}

const sorted = (totals: Map<string, number>, totalMs: number, limit: number): ProfileEntry[] =>
  [...totals.entries()]
    .sort(([, a], [, b]) => b - a)
    .slice(0, limit)
    .map(([name, us]) => ({
      name,
      ms: Math.round(us / 100) / 10,
      share: Math.round((us / 1000 / totalMs) * 1000) / 10,
    }));

/**
 * Reads a `.cpuprofile` and attributes its samples: self and inclusive time per function, and
 * self time per code area (so "how much of an invoke is valibot, kysely, prom-client?" has a
 * number). Shares are of the whole profile, idle included.
 * @param path the `.cpuprofile` file
 * @param limit how many entries each list keeps
 */
export function summarizeCpuProfile(path: string, limit = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(
    profile.nodes.map((node) => [node.id, { ...node, callFrame: originalCallFrame(node.callFrame) }]),
  );
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id);
    if (node === undefined) return;
    totalUs += us;
    const name = frameName(node);
    if (['(idle)', '(program)', '(garbage collector)'].includes(node.callFrame.functionName)) {
      idleUs += node.callFrame.functionName === '(garbage collector)' ? 0 : us;
      self.set(name, (self.get(name) ?? 0) + us);
      areas.set(node.callFrame.functionName, (areas.get(node.callFrame.functionName) ?? 0) + us);
      return;
    }
    self.set(name, (self.get(name) ?? 0) + us);
    const area = codeArea(node.callFrame.url);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
      const frame = frameName(byId.get(current)!);
      if (seen.has(frame)) continue;
      seen.add(frame);
      inclusive.set(frame, (inclusive.get(frame) ?? 0) + us);
    }
  });
  const totalMs = totalUs / 1000;
  return {
    totalMs: Math.round(totalMs),
    idleMs: Math.round(idleUs / 1000),
    selfByFunction: sorted(self, totalMs, limit),
    totalByFunction: sorted(inclusive, totalMs, limit),
    selfByArea: sorted(areas, totalMs, limit),
  };
}
