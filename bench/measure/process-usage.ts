import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

let ticksPerSecond: number | undefined;

/** Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`, 100 on Linux). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    ticksPerSecond = Number.isInteger(value) && value > 0 ? value : 100;
  }
  return ticksPerSecond;
}

/**
 * The resident set size of a process in bytes, read from `/proc/<pid>/status` (Linux), so it
 * measures any runtime from the outside without an endpoint in the server under test.
 * @param pid the process id
 */
export async function readRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(kib) * 1024;
}

/**
 * CPU time (user + system, all threads) a process has used so far, in ms, from
 * `/proc/<pid>/stat`. Two readings around a load run give CPU per request, which other
 * work on the machine disturbs far less than requests per second.
 * @param pid the process id
 */
export async function readCpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`/proc/${pid}/stat has no CPU times`);
  return (ticks / clockTicks()) * 1000;
}
