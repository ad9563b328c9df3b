import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ENSURE_BASE_IMAGE_TIMEOUT_MS, ensureBaseImage } from './base-image.js';
import { writeEngineConfig } from './engine-config.js';
import { startLoopbackRegistry, type LoopbackRegistry } from './loopback-registry.js';

/** What an image test works with: a temporary folder, a loopback registry and the engine environment. */
export interface ImageWorkspace {
  /** The temporary folder (empty until `beforeAll` ran). */
  readonly dir: string;
  /** The loopback registry (after `beforeAll`). */
  readonly registry: LoopbackRegistry;
  /** The environment to run podman, buildah and skopeo with (after `beforeAll`). */
  readonly env: Record<string, string | undefined>;
  /** Registers a clean-up that runs after the suite, last registered first; its failure is ignored. */
  cleanup(step: () => Promise<unknown>): void;
}

/**
 * A bound on the `afterAll`: each case leaves a container, a volume and an image to remove one
 * after another, and on a loaded 2-core machine that took the three actor-image cases past
 * vitest's 60 s hook default.
 */
const CLEANUP_TIMEOUT_MS = 300_000;

/**
 * Registers, in the calling `describe`, a `beforeAll` that makes the local base image, a temporary
 * folder (`prefix`), a loopback registry and this machine's engine configuration, and an
 * `afterAll` that runs the registered clean-ups, stops the registry and removes the folder. The
 * folder is made in `beforeAll`, not in the describe body, because vitest runs the body of a
 * skipped suite too.
 * @param prefix the temporary folder's name prefix.
 */
export function useImageWorkspace(prefix: string): ImageWorkspace {
  let dir = '';
  let registry: LoopbackRegistry | undefined;
  let env: Record<string, string | undefined> = {};
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    await ensureBaseImage();
    registry = await startLoopbackRegistry(join(dir, 'registry'));
    env = writeEngineConfig(join(dir, 'engine'), { insecureRegistries: [registry.host] });
  }, ENSURE_BASE_IMAGE_TIMEOUT_MS);
  afterAll(async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
    await registry?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  }, CLEANUP_TIMEOUT_MS);
  return {
    get dir() {
      return dir;
    },
    get registry() {
      if (registry === undefined) throw new Error('the image workspace is used before its beforeAll ran');
      return registry;
    },
    get env() {
      return env;
    },
    cleanup: (step) => cleanups.push(step),
  };
}
