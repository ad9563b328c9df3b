import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForLogEvent, within } from '../contract/spawn-actor.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import { invokeTurn, OutageActorProcesses } from './support/outage-actor-processes.js';

// SIGTERM during a database outage with a full disk: DATA_DIR is on a 1 MiB tmpfs filled to the
// last byte, so neither the journal nor the spill file can be written. The spill is retried
// during the grace period; the disk frees up a second after the signal, the spill succeeds,
// no empty `.tmp` is left, and after a restart with the database back /stats counts every
// answered invoke. Mounting a tmpfs needs root: without it the suite is skipped locally and fails in CI.

const INVOKES = 40;
const SPREAD = { users: 4, sessions: 7 };

/** Mounts a 1 MiB tmpfs at a new folder; undefined when this user may not mount. */
function mountSmallDisk(): string | undefined {
  const mountPoint = mkdtempSync(join(tmpdir(), 'actorkit-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return mountPoint;
  } catch {
    rmSync(mountPoint, { recursive: true, force: true });
    return undefined;
  }
}

/** Fills the file system of `folder` to the last byte with `<folder>/filler`; returns its path. */
function fill(folder: string): string {
  const filler = join(folder, 'filler');
  try {
    writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOSPC') throw error;
  }
  return filler;
}

const baseUrl = postgresTestUrl('SIGTERM with a full disk');
const disk = baseUrl === undefined ? undefined : mountSmallDisk();
if (baseUrl !== undefined && disk === undefined && process.env.CI)
  throw new Error('SIGTERM with a full disk: could not mount a tmpfs (needs root); CI must not skip this suite');
if (baseUrl !== undefined) {
  describe.skipIf(disk === undefined)('SIGTERM with a full disk during a database outage (real process, tmpfs)', () => {
    const processes = new OutageActorProcesses(baseUrl);
    afterAll(async () => {
      await processes.close();
      if (disk !== undefined) {
        execFileSync('umount', [disk]);
        rmSync(disk, { recursive: true, force: true });
      }
    });

    it('retries the spill within the grace period and leaves no empty temporary file', async () => {
      const dataDir = join(disk!, 'data');
      mkdirSync(dataDir);
      const actor = await processes.spawn({ DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '6000' });

      processes.proxy.cut();
      const filler = fill(disk!);
      for (let turn = 0; turn < INVOKES; turn += 1) {
        expect(await invokeTurn(actor, turn, SPREAD)).toMatchObject({
          status: 200,
          metadata: { stats_deferred: true },
        });
      }

      actor.child.kill('SIGTERM');
      // The disk frees up a second into the grace period.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      rmSync(filler);
      expect(await within(actor.exited, 20_000, 'exit after SIGTERM')).toEqual({ code: 0, signal: null });
      const left = readdirSync(dataDir);
      expect(left.filter((name) => name.endsWith('.tmp'))).toEqual([]);
      expect(left.filter((name) => statSync(join(dataDir, name)).size === 0)).toEqual([]);
      expect(
        actor.logs.find((record) => record.event === 'stats_flush_failed'),
        actor.output(),
      ).toBeUndefined();
      expect(actor.logs.find((record) => record.event === 'stats_spilled')).toMatchObject({ pending: INVOKES });
      expect(left).toHaveLength(1);
      // Each failure is named once: the journal's while the invokes were answered, the spill's at the signal.
      expect(actor.logs.filter((record) => record.event === 'stats_journal_failed')).toHaveLength(1);
      expect(actor.logs.filter((record) => record.event === 'stats_spill_failed')).toEqual([
        expect.objectContaining({ pending: INVOKES }),
      ]);

      processes.proxy.restore();
      const restarted = await processes.spawn();
      expect(await waitForLogEvent(restarted, 'stats_spill_merged')).toMatchObject({ records: INVOKES });
      expect(await (await fetch(`${restarted.baseUrl}/stats`)).json()).toMatchObject({
        invocations: INVOKES,
        errors: 0,
        users: SPREAD.users,
      });
      expect(readdirSync(dataDir)).toEqual([]);
    }, 90_000);
  });
}
