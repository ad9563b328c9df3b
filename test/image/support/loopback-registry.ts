import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deadPort } from '../../surfaces/loopback.js';
import { waitForHttp } from './wait-for-http.js';

/** A running `docker-registry` (distribution 2.8) on loopback. */
export interface LoopbackRegistry {
  /** `127.0.0.1:<port>`: the prefix of image names pushed to it, e.g. `${host}/demo:1`. */
  readonly host: string;
  /** `http://127.0.0.1:<port>`, for the registry's HTTP API (`/v2/_catalog`, `/v2/<name>/tags/list`). */
  readonly url: string;
  /** Stops the registry (SIGTERM, then SIGKILL after 5 s); resolves once it has exited. */
  stop(): Promise<void>;
}

/** How often a start is tried on a fresh port when the port was taken in between. */
const START_ATTEMPTS = 3;

/**
 * Starts Debian's `docker-registry serve <config.yml>` on `127.0.0.1:<free port>`, storing its
 * blobs under `<dir>/storage`, and resolves once `GET /v2/` answers 200 from a distribution
 * registry; rejects with its output when it exits or is not ready within `timeoutMs`.
 * @param dir a scratch folder for the configuration and the storage
 * @param timeoutMs the bound on each start; 15 s when left out
 * @example const registry = await startLoopbackRegistry(dir); … await registry.stop()
 */
export async function startLoopbackRegistry(dir: string, timeoutMs = 15_000): Promise<LoopbackRegistry> {
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await startOnce(dir, await deadPort(), timeoutMs);
    } catch (error) {
      lastError = error as Error;
      if (!/address already in use/.test(lastError.message)) throw lastError;
    }
  }
  throw lastError ?? new Error('docker-registry did not start');
}

async function startOnce(dir: string, port: number, timeoutMs: number): Promise<LoopbackRegistry> {
  const storage = join(dir, 'storage');
  mkdirSync(storage, { recursive: true });
  const config = join(dir, 'registry.yml');
  writeFileSync(
    config,
    [
      'version: 0.1',
      'log:',
      '  level: warn',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${JSON.stringify(storage)}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: 127.0.0.1:${port}`,
      '',
    ].join('\n'),
  );
  const child = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.on('error', (error) => {
      exit = `docker-registry did not start: ${error.message}`;
      resolve();
    });
    child.on('exit', (code, signal) => {
      exit ??= `docker-registry exited with ${code ?? signal}`;
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (exit !== undefined) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killer);
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/v2/`, {
      timeoutMs,
      // Another program may have taken the port first: only a distribution registry sends this.
      accept: (response) => response.headers.get('docker-distribution-api-version') === 'registry/2.0',
      abort: () => exit,
    });
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${output.slice(-2_000)}`);
  }
  return { host: `127.0.0.1:${port}`, url, stop };
}
