/**
 * What `actorkit eval` talks to: the actor's own app in this process, or a running actor (or the
 * platform edge) at a URL with its key.
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '../../src/index.js';
import { CliError } from '../cli-error.js';
import { PLACEHOLDER_ENVIRONMENT } from '../route-list/index.js';

/** One turn of a case as the target answered it. */
interface TargetAnswer {
  /** The HTTP status of the invoke. */
  readonly status: number;
  /** The JSON body (a chat reply on 200, a problem otherwise). */
  readonly body: unknown;
}

/** The actor under evaluation. */
export interface EvalTarget {
  /** Where the cases run, as the report shows it. */
  readonly description: string;
  /** The tools the actor's model may call; `undefined` when the target cannot tell (a URL). */
  readonly toolNames: readonly string[] | undefined;
  /** Sends one user turn; a refused key rejects with a `refused` CliError. */
  invoke(turn: {
    message: string;
    session: string;
    tenant?: string;
    settings?: Record<string, unknown>;
  }): Promise<TargetAnswer>;
  close(): Promise<void>;
}

interface InProcessApp {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
  readonly actor: { start(): Promise<void>; shutdown(): Promise<void>; toolNames?: () => readonly string[] };
}

/**
 * The actor's app in this process: `createApp` of its `src/app.ts` (compiled by tsx, with the
 * actor's own actorkit), always on an in-memory store, with placeholders for the variables its surfaces need (`MESH_KEY`, …). One app per
 * settings override, so a case's settings never leak into another case.
 * @param actorDir the actor folder.
 * @param env the environment the app reads (the model's variables among them).
 */
export async function inProcessTarget(
  actorDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<EvalTarget> {
  const entry = join(actorDir, 'src', 'app.ts');
  if (!existsSync(entry)) {
    throw new CliError(
      'refused',
      'no_entry',
      `${entry} does not exist: actorkit eval runs an actor rendered by \`actorkit new\` (or use --url)`,
    );
  }
  let createApp: (env: Record<string, string | undefined>, overrides: Record<string, unknown>) => InProcessApp;
  try {
    const { tsImport } = await import('tsx/esm/api');
    const tsconfig = join(actorDir, 'tsconfig.json');
    const module = (await tsImport(pathToFileURL(entry).href, {
      parentURL: pathToFileURL(entry).href,
      tsconfig: existsSync(tsconfig) ? tsconfig : false,
    })) as { createApp?: typeof createApp };
    if (typeof module.createApp !== 'function') throw new Error('it does not export createApp');
    createApp = module.createApp;
  } catch (error) {
    throw new CliError('failed', 'actor_load_failed', `cannot load ${entry}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // The surfaces' variables get placeholders when unset; the store is always in memory: an eval never writes the actor's database.
  const appEnv = { ...PLACEHOLDER_ENVIRONMENT, ...env, DATABASE_URL: PLACEHOLDER_ENVIRONMENT.DATABASE_URL };
  const apps = new Map<string, Promise<InProcessApp>>();
  const appFor = (settings: Record<string, unknown> | undefined) => {
    const key = JSON.stringify(settings ?? {});
    let app = apps.get(key);
    if (app === undefined) {
      app = (async () => {
        const built = createApp(appEnv, { logger: silentLogger });
        await built.actor.start();
        if (settings !== undefined) {
          const response = await built.request('/settings', jsonRequest('PUT', settings));
          if (!response.ok)
            throw new CliError(
              'refused',
              'bad_eval_settings',
              `the settings ${key} were refused: ${await response.text()}`,
            );
        }
        return built;
      })();
      apps.set(key, app);
    }
    return app;
  };
  const first = await appFor(undefined);
  return {
    description: `${entry} in this process`,
    toolNames: first.actor.toolNames?.(),
    async invoke(turn) {
      const app = await appFor(turn.settings);
      const response = await app.request('/agent/invoke', invokeRequest(turn));
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    async close() {
      for (const app of apps.values()) await (await app.catch(() => undefined))?.actor.shutdown();
    },
  };
}

/**
 * An instance's base URL on the platform edge, `…/api/v1/k/<ref>/` as `actorkit platform` prints
 * it (the prefix is the gateway's `GATEWAY_PATHS.edge`): its chat operation is `chat` below it.
 */
const EDGE_INSTANCE_BASE = /\/api\/v1\/k\/[^/]+\/?$/;

/**
 * A running actor at `url` (its `/agent/invoke`), or an instance on the platform edge: its base
 * URL (`…/api/v1/k/<ref>/`, the edge URL `actorkit platform` prints) or its chat URL (ending in
 * `/chat`), with `key` in `X-API-Key`. A 401 or 403 is one `refused` error for the whole run.
 * Settings overrides are not sent (`runEvals` skips those cases).
 * @param url the actor's base URL, or the edge instance's base or chat URL.
 * @param key the key the actor or the edge accepts.
 */
export function urlTarget(url: string, key: string | undefined): EvalTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError('refused', 'bad_usage', `--url must be an http(s) URL, got '${url}'`);
  }
  const base = `${parsed.origin}${parsed.pathname.replace(/\/?$/, '/')}`;
  const invokeUrl = parsed.pathname.endsWith('/chat')
    ? parsed.href
    : new URL(EDGE_INSTANCE_BASE.test(parsed.pathname) ? 'chat' : 'agent/invoke', base).href;
  return {
    description: invokeUrl,
    toolNames: undefined,
    async invoke(turn) {
      const request = invokeRequest(turn);
      const headers = new Headers(request.headers);
      if (key !== undefined) headers.set('X-API-Key', key);
      const response = await fetch(invokeUrl, { ...request, headers });
      if (response.status === 401 || response.status === 403) {
        throw new CliError(
          'refused',
          'key_refused',
          `${invokeUrl} refused the key (${response.status}): pass the key it accepts with --key or ACTORKIT_EVAL_KEY`,
        );
      }
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    async close() {},
  };
}

function invokeRequest(turn: { message: string; session: string; tenant?: string }): RequestInit {
  const request = jsonRequest('POST', {
    user_identifier: 'actorkit-eval',
    session_id: turn.session,
    message: turn.message,
  });
  if (turn.tenant !== undefined) (request.headers as Record<string, string>)['X-Tenant-Id'] = turn.tenant;
  return request;
}

function jsonRequest(method: string, body: unknown): RequestInit {
  return { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}
