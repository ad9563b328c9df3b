// Loaded into the server under test by bench/profile/memory-growth.ts (`node --import
// <this file> ...`): on SIGUSR2 it appends one JSON line to MEMORY_REPORT_FILE with V8's view
// of the process — process.memoryUsage(), the heap spaces and the collections so far — then, when the process runs with
// --expose-gc, the same after a full collection (the live heap), and, when MEMORY_SNAPSHOT_DIR
// is set, writes a heap snapshot there. When MEMORY_ALLOCATION_PROFILE is set, it samples every
// allocation (collected objects included) from the first report to the second and writes the
// sampling heap profile to that file. Probe only: no part of the product loads it.
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

const reportFile = process.env.MEMORY_REPORT_FILE;
if (!reportFile) throw new Error('memory-report.mjs needs MEMORY_REPORT_FILE');
const snapshotDir = process.env.MEMORY_SNAPSHOT_DIR;
const allocationProfile = process.env.MEMORY_ALLOCATION_PROFILE;
const inspector = allocationProfile ? new Session() : null;
inspector?.connect();

/** Posts an inspector command and returns its result (or throws its error). */
function post(method, params = {}) {
  return new Promise((resolve, reject) => inspector.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
}

/** process.memoryUsage() with the committed size of each V8 heap space, in bytes. */
function usage() {
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size }]));
  return { ...process.memoryUsage(), spaces };
}

/** Collections so far by kind (minor: scavenge; major: mark-compact), and their pause time in ms. */
const collections = { minor: 0, major: 0, incremental: 0, weak: 0, pauseMs: 0 };
const kinds = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = kinds[entry.detail?.kind];
    if (kind !== undefined) collections[kind] += 1;
    collections.pauseMs += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

let reports = 0;
process.on('SIGUSR2', async () => {
  reports += 1;
  const before = { ...usage(), collections: { ...collections } };
  const gc = globalThis.gc;
  let afterGc = null;
  if (typeof gc === 'function') {
    gc();
    afterGc = usage();
  }
  const snapshot = snapshotDir ? writeHeapSnapshot(join(snapshotDir, `report-${reports}.heapsnapshot`)) : null;
  if (inspector !== null && reports === 1) {
    await post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  } else if (inspector !== null && reports === 2) {
    const { profile } = await post('HeapProfiler.stopSampling');
    writeFileSync(allocationProfile, JSON.stringify(profile));
  }
  appendFileSync(reportFile, `${JSON.stringify({ report: reports, before, afterGc, snapshot })}\n`);
});
