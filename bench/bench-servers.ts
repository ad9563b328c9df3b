import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES_UNDER_TEST, type RuntimeProcess } from '../test/contract/runtimes-under-test.js';
import type { InvokeShape, LoadRoute } from './load/run-wrk.js';

/** The runtimes the bench compares. */
export type BenchRuntime = 'node' | 'bun';

/** The stores the full stack is measured on. */
export type BenchStore = 'sqlite' | 'postgres';

/**
 * What a bench server runs: the actor, bare Hono answering invokes with a reply of the actor's
 * shape (`bare`, the floor of the ratios), or bare Hono echoing the request (`bare-echo`, no
 * reply-shape work: the lowest floor there is), or the nearest peer (`peer`: a Mastra agent
 * server with LibSQL memory, bench/peers/mastra).
 */
export type BenchStack = 'actor' | 'bare' | 'bare-echo' | 'peer';

/** One server the bench starts: the full actor stack on a store, or bare Hono on the same runtime. */
export interface BenchServer {
  readonly runtime: BenchRuntime;
  readonly stack: BenchStack;
  /** The actor's store; none for bare Hono. */
  readonly store: BenchStore | null;
  /** How test/contract/spawn-actor.ts starts it. */
  readonly process: RuntimeProcess;
  /** Environment on top of spawnActor's minimal one. */
  readonly env: Readonly<Record<string, string>>;
  /** The routes it is loaded on; every route when absent. */
  readonly routes?: readonly LoadRoute[];
  /** How it takes the invoke (default `actor`). */
  readonly invokeShape?: InvokeShape;
  /** Overrides the label of `serverLabel` (e.g. the actor on the mock model). */
  readonly label?: string;
  /** Sessions its invokes are spread over (default 200, see `LoadCell.sessions`). */
  readonly sessions?: number;
}

const bareEntry = (runtime: BenchRuntime) => fileURLToPath(new URL(`./bare-hono/main.${runtime}.mjs`, import.meta.url));

/** The built example actor under `runtime` (node: the Node running the bench; bun: test/runtimes). */
export function actorProcess(runtime: BenchRuntime): RuntimeProcess {
  const name = runtime === 'node' ? 'node-system' : 'bun';
  const found = RUNTIMES_UNDER_TEST.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`test/contract/runtimes-under-test.ts lists no ${name}`);
  return found;
}

/**
 * The example actor of another checkout (`dir`, built with `npm run build`) on the Node running
 * the bench, for before/after comparisons; throws when its build is missing.
 * @param dir the checkout
 * @param name the process name spawnActor reports
 */
export function checkoutActorProcess(dir: string, name: string): RuntimeProcess {
  const entry = join(resolve(dir), 'dist', 'examples', 'hello-actor', 'src', 'main.node.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm install && npm run build in ${dir}`);
  return { name, command: process.execPath, args: [entry] };
}

/**
 * The environment that puts the example actor on `store`: `DATABASE_URL` empty means the
 * SQLite file `<DATA_DIR>/actor.db` (spawnActor gives each process a fresh `DATA_DIR`).
 * @param store the store
 * @param postgresUrl the bench database
 */
export function storeEnv(store: BenchStore, postgresUrl: string): Record<string, string> {
  return { DATABASE_URL: store === 'sqlite' ? '' : postgresUrl };
}

/**
 * The servers of one runtime, bare Hono first: bare Hono, on Node bare Hono echoing invokes
 * (loaded on the invoke only), the actor on an SQLite file, the actor on PostgreSQL (left out
 * when `postgresUrl` is null).
 * @param runtime node or bun
 * @param postgresUrl the bench database, or null when PostgreSQL is unreachable
 */
export function benchServers(runtime: BenchRuntime, postgresUrl: string | null): BenchServer[] {
  const actor = actorProcess(runtime);
  const bare: BenchServer = {
    runtime,
    stack: 'bare',
    store: null,
    process: { name: `bare-${runtime}`, command: actor.command, args: [bareEntry(runtime)] },
    env: {},
  };
  const echo: BenchServer[] =
    runtime === 'node'
      ? [
          {
            ...bare,
            stack: 'bare-echo',
            process: { ...bare.process, name: `bare-echo-${runtime}`, args: [bareEntry(runtime), 'echo'] },
            routes: ['invoke'],
          },
        ]
      : [];
  const stores: BenchStore[] = postgresUrl === null ? ['sqlite'] : ['sqlite', 'postgres'];
  return [
    bare,
    ...echo,
    ...stores.map(
      (store): BenchServer => ({
        runtime,
        stack: 'actor',
        store,
        process: actor,
        env: storeEnv(store, postgresUrl ?? ''),
      }),
    ),
  ];
}

/** A short label: `node bare Hono`, `node bare Hono echo`, `bun actor (postgres)`, or the server's own `label`. */
export function serverLabel(
  server: Pick<BenchServer, 'runtime' | 'stack' | 'store'> & { readonly label?: string },
): string {
  if (server.label !== undefined) return server.label;
  if (server.stack === 'peer') return `${server.runtime} Mastra agent (LibSQL memory)`;
  if (server.stack === 'bare') return `${server.runtime} bare Hono`;
  if (server.stack === 'bare-echo') return `${server.runtime} bare Hono echo`;
  return `${server.runtime} actor (${server.store})`;
}
