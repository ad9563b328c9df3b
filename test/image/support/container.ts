import { runCommand } from './run-command.js';
import { waitForHttp, type WaitForHttpOptions } from './wait-for-http.js';

/** A bind mount (absolute host path) or a named volume, mounted at `target` in the container. */
export interface ContainerVolume {
  /** An absolute host path, or the name of a podman volume (created on first use). */
  readonly source: string;
  /** The path inside the container, e.g. `/data`. */
  readonly target: string;
}

/** What `runContainer` starts. */
export interface RunContainerOptions {
  /** The image, e.g. `127.0.0.1:5000/demo:1`. */
  readonly image: string;
  /** The environment podman runs with (`writeEngineConfig`'s answer). */
  readonly engineEnv: Readonly<Record<string, string | undefined>>;
  /** The port the process listens on inside the container; published on a free port of 127.0.0.1. */
  readonly port: number;
  /** Environment variables of the container (`--env`). */
  readonly environment?: Readonly<Record<string, string>>;
  /** Volumes to mount (`--volume source:target`). */
  readonly volumes?: readonly ContainerVolume[];
  /** Arguments after the image (replace its CMD). */
  readonly args?: readonly string[];
  /** Bounds `podman run` itself (not the container's life); 60 s when left out. */
  readonly timeoutMs?: number;
}

/** A detached container started by `runContainer`. */
export interface RunningContainer {
  /** The container id. */
  readonly id: string;
  /** `http://127.0.0.1:<published port>` (read again after `start`). */
  readonly url: string;
  /**
   * Polls `GET <url><path>` until it answers (200 unless told), resolving with the answer; the
   * error carries the container's logs. Stops early when the container is no longer running.
   */
  waitForHttp(path: string, options?: Pick<WaitForHttpOptions, 'status' | 'timeoutMs'>): Promise<Response>;
  /** The container's stdout and stderr so far (`podman logs`). */
  logs(): Promise<string>;
  /** Runs `podman inspect --format <template>` on the container, e.g. `{{.State.ExitCode}}`. */
  inspect(template: string): Promise<string>;
  /**
   * Stops it (`podman stop --time <graceSeconds>`: SIGTERM, then SIGKILL after the grace), resolving
   * with its exit code and how long the stop took.
   */
  stop(graceSeconds: number): Promise<{ readonly exitCode: number; readonly elapsedMs: number }>;
  /** Starts it again after `stop` (same id, same volumes) and reads its published port again. */
  start(): Promise<void>;
  /** Removes it, running or not (`podman rm --force`); idempotent. Named volumes stay. */
  remove(): Promise<void>;
}

/**
 * Runs `image` detached with podman (`podman run --detach --publish 127.0.0.1::<port> …`), so a
 * test can wait for an HTTP path, read logs, stop it within a grace period, restart and remove it.
 * Call `remove` in a `finally` or `afterAll`.
 * @param options image, engine environment, port, container environment and volumes
 * @example
 * const container = await runContainer({ image, engineEnv: env, port: 8080, volumes: [{ source: 'demo-data', target: '/data' }] });
 * try { await container.waitForHttp('/ready', { timeoutMs: 30_000 }); } finally { await container.remove(); }
 */
export async function runContainer(options: RunContainerOptions): Promise<RunningContainer> {
  const env = options.engineEnv;
  const podman = (args: readonly string[], timeoutMs = 60_000) => runCommand('podman', args, { env, timeoutMs });
  const runArgs = ['run', '--detach', '--publish', `127.0.0.1::${options.port}`];
  for (const [name, value] of Object.entries(options.environment ?? {})) runArgs.push('--env', `${name}=${value}`);
  for (const volume of options.volumes ?? []) runArgs.push('--volume', `${volume.source}:${volume.target}`);
  const id = (await podman([...runArgs, options.image, ...(options.args ?? [])], options.timeoutMs)).trim();

  const publishedUrl = async (): Promise<string> => {
    // `podman port <id> 8080/tcp` answers `127.0.0.1:43127`.
    const address = (await podman(['port', id, `${options.port}/tcp`])).trim().split('\n')[0] ?? '';
    return `http://${address}`;
  };
  const inspect = async (template: string) => (await podman(['inspect', '--format', template, id])).trim();
  const logs = () => podman(['logs', id]);
  let url: string;
  try {
    url = await publishedUrl();
  } catch (error) {
    await podman(['rm', '--force', id]).catch(() => undefined);
    throw error;
  }

  const container: RunningContainer = {
    id,
    get url() {
      return url;
    },
    async waitForHttp(path, waitOptions = {}) {
      try {
        return await waitForHttp(`${url}${path}`, {
          ...waitOptions,
          abort: async () => {
            const state = await inspect('{{.State.Status}}').catch(() => 'gone');
            return state === 'running' ? undefined : `the container is ${state}`;
          },
        });
      } catch (error) {
        const output = await logs().catch((logError: Error) => `(no logs: ${logError.message})`);
        throw new Error(
          `${(error as Error).message}\ncontainer ${id} (${options.image}) logs:\n${output.slice(-4_000)}`,
        );
      }
    },
    logs,
    inspect,
    async stop(graceSeconds) {
      const started = Date.now();
      await podman(['stop', '--time', String(graceSeconds), id], (graceSeconds + 60) * 1_000);
      const elapsedMs = Date.now() - started;
      return { exitCode: Number(await inspect('{{.State.ExitCode}}')), elapsedMs };
    },
    async start() {
      await podman(['start', id]);
      url = await publishedUrl();
    },
    async remove() {
      await podman(['rm', '--force', '--time', '2', '--ignore', id]);
    },
  };
  return container;
}
