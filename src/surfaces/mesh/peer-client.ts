import { checkMeshDomain } from './mesh-domain.js';
import { MESH_KEY_HEADER } from './mesh-key-auth.js';
import type { PeerCheck } from './mesh-router.js';
import { PeerRequestError } from './peer-request-error.js';

/** Options of `createPeerClient`. */
export interface PeerClientOptions {
  /** The sibling actor's URL; may carry a path prefix, e.g. `http://weather.actors.svc:8080`. */
  readonly baseUrl: string;
  /** The sibling's domain: reads go to `<baseUrl>/api/<domain>/…`. */
  readonly domain: string;
  /** The group's mesh key (one key, not a list). */
  readonly meshKey: string;
  /** Time-out of a whole read, headers and body, in ms; default 5 000. */
  readonly timeoutMs?: number;
  /** The sibling's API key, when it runs standalone with `API_KEY_ENABLED=true`. */
  readonly apiKey?: string;
  /** The fetch to use; default the global one. */
  readonly fetch?: typeof fetch;
}

/** Options of one peer read. */
export interface PeerReadOptions {
  readonly query?: Readonly<Record<string, string | number | boolean>> | URLSearchParams;
  /** Cancels the read; its reason is rethrown as is. */
  readonly signal?: AbortSignal;
  /** Sent as `X-Tenant-Id`. */
  readonly tenantId?: string;
  /** Sent as `X-Request-Id`, to follow one request across actors in the logs. */
  readonly requestId?: string;
}

/** Reads a sibling actor's peer routes. */
export interface PeerClient {
  readonly domain: string;
  /**
   * GETs `<baseUrl>/api/<domain>/<path>` and parses the JSON answer.
   * @throws PeerRequestError on a time-out, a network failure, a non-2xx answer or a non-JSON body
   */
  get<T = unknown>(path: string, options?: PeerReadOptions): Promise<T>;
  /** Reads `_peer_check`: proves the sibling is up and accepts the key. */
  check(options?: PeerReadOptions): Promise<PeerCheck>;
}

/** Default time-out of a peer read. */
const DEFAULT_PEER_TIMEOUT_MS = 5_000;

async function problemOf(response: Response): Promise<{ code?: string; detail?: string }> {
  try {
    const body = (await response.json()) as { code?: unknown; detail?: unknown };
    return {
      ...(typeof body.code === 'string' ? { code: body.code } : {}),
      ...(typeof body.detail === 'string' ? { detail: body.detail } : {}),
    };
  } catch {
    return {};
  }
}

async function failureOf(response: Response, url: string): Promise<PeerRequestError> {
  const problem = await problemOf(response);
  const peer = { peerStatus: response.status, ...(problem.code === undefined ? {} : { peerCode: problem.code }) };
  if (response.status === 401)
    return new PeerRequestError(
      'peer_rejected',
      url,
      `The peer refused the mesh key (${problem.code ?? 'HTTP 401'})`,
      peer,
    );
  const what = problem.code === undefined ? `HTTP ${response.status}` : `HTTP ${response.status} ${problem.code}`;
  return new PeerRequestError(
    'peer_error',
    url,
    `The peer answered ${what}${problem.detail === undefined ? '' : `: ${problem.detail}`}`,
    peer,
  );
}

/**
 * A client for a sibling actor's peer reads (`fleet_mesh`): adds `X-Mesh-Key`, bounds every
 * read by a time-out, refuses to follow redirects (the key must not travel elsewhere) and turns
 * every failure into a `PeerRequestError` with a stable code.
 * @param options the sibling's URL and domain, the key and the time-out
 * @example
 * const weather = createPeerClient({ baseUrl: 'http://weather:8080', domain: 'weather', meshKey: env.MESH_KEY! });
 * const today = await weather.get<{ temp: number }>('/forecast/oslo');
 */
export function createPeerClient(options: PeerClientOptions): PeerClient {
  const domain = checkMeshDomain(options.domain);
  if (options.meshKey.trim() === '' || options.meshKey.includes(','))
    throw new Error('createPeerClient needs one non-empty mesh key');
  const timeoutMs = options.timeoutMs ?? DEFAULT_PEER_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new Error(`timeoutMs must be a positive number, got ${timeoutMs}`);
  const base = new URL(`${options.baseUrl.replace(/\/+$/, '')}/api/${domain}/`);
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new Error(`baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
  const doFetch = options.fetch ?? fetch;

  function target(path: string, query: PeerReadOptions['query']): URL {
    const url = new URL(path.replace(/^\/+/, ''), base);
    if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname))
      throw new Error(`Peer path ${JSON.stringify(path)} leaves /api/${domain}/`);
    const params =
      query instanceof URLSearchParams
        ? query
        : new URLSearchParams(Object.entries(query ?? {}).map(([key, value]) => [key, String(value)]));
    for (const [key, value] of params) url.searchParams.append(key, value);
    return url;
  }

  async function get<T>(path: string, read: PeerReadOptions = {}): Promise<T> {
    const url = target(path, read.query);
    const shown = url.href;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), timeoutMs);
    const signal = read.signal === undefined ? timer.signal : AbortSignal.any([read.signal, timer.signal]);
    const headers = new Headers({ Accept: 'application/json', [MESH_KEY_HEADER]: options.meshKey });
    if (options.apiKey !== undefined) headers.set('X-API-Key', options.apiKey);
    if (read.tenantId !== undefined) headers.set('X-Tenant-Id', read.tenantId);
    if (read.requestId !== undefined) headers.set('X-Request-Id', read.requestId);
    try {
      const response = await doFetch(url, { method: 'GET', headers, redirect: 'manual', signal });
      if (!response.ok) throw await failureOf(response, shown);
      const text = await response.text();
      try {
        return JSON.parse(text) as T;
      } catch (error) {
        throw new PeerRequestError(
          'peer_invalid_response',
          shown,
          `The peer answered ${response.status} but not with JSON`,
          { peerStatus: response.status, cause: error },
        );
      }
    } catch (error) {
      if (error instanceof PeerRequestError) throw error;
      if (read.signal?.aborted) throw read.signal.reason;
      if (timer.signal.aborted)
        throw new PeerRequestError('peer_timeout', shown, `The peer did not answer within ${timeoutMs} ms`, {
          cause: error,
        });
      throw new PeerRequestError(
        'peer_unavailable',
        shown,
        `The peer could not be reached: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
        { cause: error },
      );
    } finally {
      clearTimeout(timeout);
    }
  }

  return {
    domain,
    get,
    check: (read) => get<PeerCheck>('_peer_check', read),
  };
}
