import { join } from 'node:path';
import { runCommand } from './run-command.js';

/** The name the rendered Dockerfile's `FROM node:20.19-bookworm-slim` resolves to, which the stand-in takes. */
export const BASE_IMAGE = 'docker.io/library/node:20.19-bookworm-slim';

/** The script that makes the stand-in (Debian bookworm by debootstrap, Node and npm from the npm registry). */
const MAKE_BASE_IMAGE_SCRIPT = join(import.meta.dirname, '..', 'make-base-image.sh');

/** A bound on making the stand-in from nothing (about 50 s here; debootstrap downloads ~30 MB). */
export const ENSURE_BASE_IMAGE_TIMEOUT_MS = 600_000;

/**
 * Makes sure the local stand-in for `node:20.19-bookworm-slim` exists (runs
 * test/image/make-base-image.sh, which does nothing when the image with its recipe label is there,
 * and builds it otherwise) and resolves with the script's last line. Give the calling hook
 * `ENSURE_BASE_IMAGE_TIMEOUT_MS`.
 * @example beforeAll(() => ensureBaseImage(), ENSURE_BASE_IMAGE_TIMEOUT_MS)
 */
export async function ensureBaseImage(): Promise<string> {
  const output = await runCommand('bash', [MAKE_BASE_IMAGE_SCRIPT], {
    env: process.env,
    timeoutMs: ENSURE_BASE_IMAGE_TIMEOUT_MS,
  });
  return output.trim().split('\n').at(-1) ?? '';
}
