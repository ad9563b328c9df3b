import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from '../contract/runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitForLogEvent, waitUntilReady, within } from '../contract/spawn-actor.js';
import { proxyDatabase, TestSchemas } from '../store/postgres-schemas.js';
import { postgresTestUrl } from '../store/postgres-test-database.js';
import type { TcpProxy } from '../support/tcp-proxy.js';

// SIGTERM during a database outage with a full disk: DATA_DIR is on a 1 MiB tmpfs filled to the
// last byte, so neither the journal nor the spill file can be written. The spill is retried
// during the grace period; the disk frees up a second after the signal, the spill succeeds,
// no empty `.tmp` is left, and after a restart with the database back /stats counts every
// answered invoke. Mounting a tmpfs needs root: without it the suite is skipped.

const INVOKES = 40;
const runtime = RUNTIMES_UNDER_TEST.find((candidate) => candidate.name === 'node-system')!;

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
if (baseUrl !== undefined) {
  describe.skipIf(disk === undefined)('SIGTERM with a full disk during a database outage (real process, tmpfs)', () => {
    const schemas = new TestSchemas(baseUrl);
    const actors: SpawnedActor[] = [];
    let proxy: TcpProxy | undefined;
    afterAll(async () => {
      for (const actor of actors) await actor.dispose();
      await proxy?.close();
      await schemas.dropAll();
      if (disk !== undefined) {
        execFileSync('umount', [disk]);
        rmSync(disk, { recursive: true, force: true });
      }
    });

    it('retries the spill within the grace period and leaves no empty temporary file', async () => {
      checkRuntime(runtime);
      const dataDir = join(disk!, 'data');
      mkdirSync(dataDir);
      const proxied = await proxyDatabase(await schemas.create());
      proxy = proxied.proxy;
      const env = {
        DATABASE_URL: proxied.url,
        DATA_DIR: dataDir,
        DATABASE_TIMEOUT_MS: '1000',
        SHUTDOWN_GRACE_MS: '6000',
      };
      const actor = await spawnActor(runtime, env);
      actors.push(actor);
      await waitUntilReady(actor);

      proxy.cut();
      const filler = fill(disk!);
      for (let turn = 0; turn < INVOKES; turn += 1) {
        const response = await fetch(`${actor.baseUrl}/agent/invoke`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            user_identifier: `u-${turn % 4}`,
            session_id: `s-${turn % 7}`,
            message: `turn ${turn}`,
          }),
          signal: AbortSignal.timeout(10_000),
        });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { metadata?: Record<string, unknown> }).metadata?.stats_deferred).toBe(true);
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

      proxy.restore();
      const restarted = await spawnActor(runtime, env);
      actors.push(restarted);
      await waitUntilReady(restarted);
      expect(await waitForLogEvent(restarted, 'stats_spill_merged')).toMatchObject({ records: INVOKES });
      expect(await (await fetch(`${restarted.baseUrl}/stats`)).json()).toMatchObject({
        invocations: INVOKES,
        errors: 0,
        users: 4,
      });
      expect(readdirSync(dataDir)).toEqual([]);
    }, 90_000);
  });
}
