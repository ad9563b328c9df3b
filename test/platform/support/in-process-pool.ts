// An ActorPool over in-process actor apps: N "replicas" served on loopback ports (real HTTP, no
// child processes), round-robin over the ready ones, with kill and restart for the tests.
import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { ActorPool, ReplicaState, ReplicaView } from '../../../platform/actor-pool.js';
import { noReadyReplica } from '../../../platform/supervised-pool.js';
import type { ActorApp } from '../../../src/app/create-actor-app.js';
import type { PlatformConfig } from '../../../src/config/platform-config.js';
import { createLogger, type LogSink } from '../../../src/log/logger.js';

type Server = import('node:http').Server;

interface Slot {
  app: ActorApp;
  server: Server;
  url: string;
  state: ReplicaState;
  restarts: number;
  startedAt: string;
  lines: string[];
  inFlight: number;
}

/** Options of `startInProcessPool`. */
export interface InProcessPoolOptions {
  readonly ref: string;
  readonly config: PlatformConfig;
  readonly replicas: number;
  readonly meshGroup?: string;
  /** Builds one replica's app with the logger given (it keeps the last lines). */
  readonly makeApp: (index: number, logger: ReturnType<typeof createLogger>) => ActorApp;
}

/** The pool, plus what a test does to its replicas. */
export interface InProcessPool extends ActorPool {
  /** Takes the replica out of the round-robin, waits for its requests under way, and stops its server without a graceful shutdown of the actor. */
  kill(index: number): Promise<void>;
  /** Starts a new app in the slot (as the supervisor restarts a dead replica). */
  restart(index: number): Promise<void>;
  close(): Promise<void>;
}

async function listen(app: ActorApp): Promise<{ server: Server; url: string }> {
  const server = createAdaptorServer({
    fetch: (request: Request) => app.fetch(request),
    hostname: '127.0.0.1',
  }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Starts `replicas` apps one after the other (migrations on one database), each on a loopback
 * port, ready once its declared readiness path answers 200.
 * @param options the instance and how to build a replica
 */
export async function startInProcessPool(options: InProcessPoolOptions): Promise<InProcessPool> {
  const slots: Slot[] = [];
  const apps: ActorApp[] = [];
  let next = 0;

  const startSlot = async (index: number, restarts: number): Promise<Slot> => {
    const lines: string[] = [];
    const sink: LogSink = (record) => {
      const { time, level, event, ...fields } = record;
      lines.push(`${time} ${level} ${event} ${JSON.stringify(fields)}`);
      lines.splice(0, Math.max(0, lines.length - 50));
    };
    const app = options.makeApp(index, createLogger({ level: 'info', sink }));
    apps.push(app);
    await app.actor.start();
    const { server, url } = await listen(app);
    const slot: Slot = {
      app,
      server,
      url,
      state: 'starting',
      restarts,
      startedAt: new Date().toISOString(),
      lines,
      inFlight: 0,
    };
    const readiness = options.config.deployment.readiness_path ?? options.config.deployment.health_path;
    slot.state = (await fetch(url + readiness)).status === 200 ? 'ready' : 'not_ready';
    return slot;
  };

  const send = async (slot: Slot, request: Request): Promise<Response> => {
    const url = new URL(request.url);
    slot.inFlight += 1;
    try {
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      return await fetch(slot.url + url.pathname + url.search, {
        method: request.method,
        headers: request.headers,
        signal: request.signal,
        ...(hasBody ? { body: request.body, duplex: 'half' } : {}),
      } as RequestInit);
    } finally {
      slot.inFlight -= 1;
    }
  };

  for (let index = 0; index < options.replicas; index += 1) slots.push(await startSlot(index, 0));

  const stopServer = (slot: Slot) =>
    new Promise<void>((resolve) => {
      slot.server.closeAllConnections();
      slot.server.close(() => resolve());
    });

  return {
    ref: options.ref,
    slug: options.config.actor.slug,
    dir: `/in-process/${options.ref}`,
    config: options.config,
    meshGroup: options.meshGroup,
    replicas: (): ReplicaView[] =>
      slots.map((slot, index) => ({
        index,
        url: slot.url,
        state: slot.state,
        pid: process.pid,
        restarts: slot.restarts,
        startedAt: slot.startedAt,
        lastLines: [...slot.lines],
      })),
    async forward(request) {
      const ready = slots.filter((slot) => slot.state === 'ready');
      if (ready.length === 0) return noReadyReplica(options.ref, request, false);
      const slot = ready[next % ready.length] as Slot;
      next += 1;
      return send(slot, request);
    },
    forwardTo(index, request) {
      const slot = slots[index];
      if (slot === undefined) throw new Error(`No replica ${index}`);
      return send(slot, request);
    },
    async kill(index) {
      const slot = slots[index] as Slot;
      slot.state = 'exited';
      while (slot.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await stopServer(slot);
    },
    async restart(index) {
      const old = slots[index] as Slot;
      slots[index] = await startSlot(index, old.restarts + 1);
    },
    async close() {
      await Promise.all(slots.filter((slot) => slot.server.listening).map(stopServer));
      await Promise.all(apps.map((app) => app.actor.shutdown({ graceMs: 0 }).catch(() => {})));
    },
  };
}
