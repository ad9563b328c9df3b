import { ActorError } from '../../src/index.js';
import type { ActorPool } from '../actor-pool.js';
import { ACTOR_PATHS, NEVER_EXPOSED_SEGMENTS, runIdOfLocation } from './actor-paths.js';
import type { BackgroundRunWatch } from './background-runs.js';
import {
  a2aSendsMessage,
  type AnsweredInvokes,
  a2aTaskIdOfAnswer,
  mcpChatCallIds,
  succeededMcpChats,
  watchA2aTaskId,
  watchChatStream,
} from './answered-invokes.js';
import { EDGE_OPERATIONS, type EdgeOperation, type EdgeOperationName } from './edge-operations.js';
import { EDGE_KEY_HEADER, type EdgeKeyring } from './edge-keys.js';
import { type ForwardFacts, forwardedRequest, relayedResponse } from './forwarded-request.js';
import { edgeA2aPath, edgeBasePath, edgeRunPath } from './gateway-paths.js';
import type { Reconciler } from './reconciler.js';
import { sendToReplica } from './send-to-replica.js';

/** What the edge needs of the gateway. */
export interface ExternalEdgeServices {
  readonly pools: ReadonlyMap<string, ActorPool>;
  readonly keys: EdgeKeyring;
  readonly answered: AnsweredInvokes;
  readonly reconciler: Reconciler;
  /** Follows the background runs `chat` starts, to count each once it completes. */
  readonly runs: BackgroundRunWatch;
  /** The tenant every edge call is made for: the instance owner's, the key's owner. */
  readonly ownerTenant: string;
  /** The largest `/mcp` or `chat/a2a` body the edge reads (to count the chat turns in it). */
  readonly maxMcpBodyBytes: number;
}

/** The instance an edge or relay path names, or 404 `unknown_actor`. */
export function poolOf(pools: ReadonlyMap<string, ActorPool>, ref: string): ActorPool {
  const pool = pools.get(ref);
  if (pool === undefined)
    throw new ActorError('unknown_actor', { detail: `This platform hosts no actor instance ${JSON.stringify(ref)}` });
  return pool;
}

/** Whether the instance has an external edge at all: `external_api.enabled` and `platform_expose_external_api`. */
export function hasEdge(pool: Pick<ActorPool, 'config'>): boolean {
  return pool.config.external_api.enabled && pool.config.features.platform_expose_external_api;
}

/** The operations the instance's edge offers, in the order of `EDGE_OPERATIONS`. */
export function exposedOperations(pool: Pick<ActorPool, 'config'>): string[] {
  if (!hasEdge(pool)) return [];
  return Object.keys(EDGE_OPERATIONS).filter((name) => pool.config.external_api.operations.includes(name));
}

/**
 * Judges an edge request before it goes anywhere: the instance (404 `unknown_actor`), its edge
 * (404 `external_api_disabled`), settings and OAuth (403 `never_exposed`, whatever the
 * configuration says), the key (401 `missing_edge_key` / `invalid_edge_key`), the operation
 * (404 `not_found` for no operation or a sub-path it lacks, `operation_not_exposed` for one the
 * configuration does not list) and the method (405 with `Allow`); answers the actor path to go to.
 */
function admit(
  services: ExternalEdgeServices,
  request: Request,
  ref: string,
  rest: string,
): { pool: ActorPool; operation: EdgeOperation; actorPath: string } {
  const pool = poolOf(services.pools, ref);
  if (!hasEdge(pool))
    throw new ActorError('external_api_disabled', {
      detail: `${ref} has no external edge: its configuration has external_api.enabled false (platform_expose_external_api off)`,
    });
  const segments = rest.split('/').filter(Boolean);
  const first = decodeURIComponent(segments[0] ?? '').toLowerCase();
  if (NEVER_EXPOSED_SEGMENTS.includes(first))
    throw new ActorError('never_exposed', {
      detail: `${first} is never reachable through the external edge; the owner changes it on the platform`,
    });
  const check = services.keys.check(ref, request.headers.get(EDGE_KEY_HEADER) ?? undefined);
  const challenge = { 'WWW-Authenticate': `ApiKey header="${EDGE_KEY_HEADER}"` };
  if (check === 'missing')
    throw new ActorError('missing_edge_key', {
      detail: `Send the instance's edge key in ${EDGE_KEY_HEADER}`,
      headers: challenge,
    });
  if (check === 'invalid')
    throw new ActorError('invalid_edge_key', {
      detail: `${EDGE_KEY_HEADER} is not the edge key of ${ref} (was it rotated?)`,
      headers: challenge,
    });
  if (segments.join('/') === ACTOR_PATHS.a2aCard.slice(1)) return admitA2aCard(pool, request, ref);
  const name = first;
  const operation = Object.hasOwn(EDGE_OPERATIONS, name) ? EDGE_OPERATIONS[name as EdgeOperationName] : undefined;
  const noSuchPath = () =>
    new ActorError('not_found', {
      detail: `The edge offers only ${Object.keys(EDGE_OPERATIONS).join(', ')} under ${edgeBasePath(ref)}/ (and chat/ag-ui, status/<run id>, status/<run id>/stream)`,
    });
  if (operation === undefined) throw noSuchPath();
  if (!exposedOperations(pool).includes(name)) {
    throw new ActorError('operation_not_exposed', {
      detail: `${ref} exposes ${exposedOperations(pool).join(', ') || 'no operation'} (external_api.operations), not ${name}`,
    });
  }
  let below: string[];
  try {
    below = segments.slice(1).map((segment) => decodeURIComponent(segment));
  } catch {
    throw noSuchPath();
  }
  const actorPath = operation.actorPath({
    tenant: services.ownerTenant,
    below,
    query: new URL(request.url).searchParams,
  });
  if (actorPath === undefined) throw noSuchPath();
  if (!operation.methods.includes(request.method)) {
    throw new ActorError('method_not_allowed', {
      detail: `${name} takes ${operation.methods.join(', ')}`,
      headers: { Allow: operation.methods.join(', ') },
    });
  }
  return { pool, operation, actorPath };
}

/** The edge's A2A card: a read of the actor's card, offered where the instance exposes `chat` (its only interface is `chat/a2a`). */
const A2A_CARD_OPERATION: EdgeOperation = { methods: ['GET'], actorPath: () => ACTOR_PATHS.a2aCard, counts: 'none' };

/**
 * Admits a read of the instance's A2A card (`/api/v1/k/<ref>/.well-known/agent-card.json`): 404
 * `operation_not_exposed` when the instance does not expose `chat`, 405 for a method but GET.
 */
function admitA2aCard(
  pool: ActorPool,
  request: Request,
  ref: string,
): { pool: ActorPool; operation: EdgeOperation; actorPath: string } {
  if (!exposedOperations(pool).includes('chat'))
    throw new ActorError('operation_not_exposed', {
      detail: `${ref} does not expose chat (external_api.operations), which its A2A card is the card of`,
    });
  if (!A2A_CARD_OPERATION.methods.includes(request.method))
    throw new ActorError('method_not_allowed', {
      detail: `The A2A card takes ${A2A_CARD_OPERATION.methods.join(', ')}`,
      headers: { Allow: A2A_CARD_OPERATION.methods.join(', ') },
    });
  return { pool, operation: A2A_CARD_OPERATION, actorPath: ACTOR_PATHS.a2aCard };
}

/** The name of the edge key's scheme in an edge card's `securitySchemes`. */
const EDGE_KEY_SCHEME = 'edgeKey';

/**
 * The actor's A2A card as the edge serves it: its one interface A2A's JSON-RPC binding at the
 * edge's `chat/a2a` (HTTP+JSON is not served through the edge: its one base would carry both
 * `chat` and `status` methods), and the edge key in `X-API-Key` its only security scheme; the
 * rest (name, skills, capabilities, modes) is the actor's.
 * @param card the actor's card, as JSON
 * @param origin the origin the client addressed the edge at
 * @param ref the instance
 */
function edgeA2aCard(card: Record<string, unknown>, origin: string, ref: string): Record<string, unknown> {
  const interfaces = Array.isArray(card.supportedInterfaces)
    ? (card.supportedInterfaces as Record<string, unknown>[])
    : [];
  return {
    ...card,
    supportedInterfaces: interfaces
      .filter((entry) => entry.protocolBinding === 'JSONRPC')
      .map((entry) => ({ ...entry, url: `${origin}${edgeA2aPath(ref)}` })),
    securitySchemes: {
      [EDGE_KEY_SCHEME]: {
        apiKeySecurityScheme: {
          description: `The edge key of ${ref}`,
          location: 'header',
          name: EDGE_KEY_HEADER,
        },
      },
    },
    securityRequirements: [{ schemes: { [EDGE_KEY_SCHEME]: { list: [] } } }],
  };
}

/**
 * Answers a read of the instance's A2A card: the actor's card rewritten for the edge (see
 * `edgeA2aCard`); the actor's own answer otherwise (a 404 problem from one without `expose_a2a`).
 */
async function answerA2aCard(pool: ActorPool, request: Request, facts: ForwardFacts, ref: string): Promise<Response> {
  const answer = await sendToReplica(pool, forwardedRequest(request, facts));
  if (!answer.ok) return relayedResponse(answer);
  const card = (await answer.json()) as Record<string, unknown>;
  return Response.json(edgeA2aCard(card, new URL(request.url).origin, ref), {
    headers: { 'X-Request-Id': facts.requestId },
  });
}

/**
 * Answers `chat/a2a`: a JSON-RPC call that sends a message (`SendMessage`, `SendStreamingMessage`)
 * starts a run, counted as one chat turn once that run (its task) has completed, as a background
 * chat is; any other call (get, list, cancel, subscribe) goes through uncounted.
 */
async function answerA2a(
  services: ExternalEdgeServices,
  request: Request,
  pool: ActorPool,
  facts: ForwardFacts,
): Promise<Response> {
  const body = await readCappedText(request, services.maxMcpBodyBytes);
  const forwarded = forwardedRequest(request, { ...facts, body });
  if (!a2aSendsMessage(body)) return relayedResponse(await sendToReplica(pool, forwarded));
  const { tenant, requestId } = facts;
  await services.reconciler.ensureBaseline(pool, tenant);
  services.answered.begin(pool.ref);
  const count = (succeeded: boolean) => {
    if (succeeded) services.answered.add(pool.ref, tenant);
    services.answered.settle(pool.ref);
  };
  const followTask = (taskId: string | undefined) => {
    if (taskId === undefined) count(false);
    else services.runs.follow(pool, taskId, tenant, requestId, count);
  };
  let answer: Response;
  try {
    answer = await sendToReplica(pool, forwarded);
  } catch (error) {
    count(false);
    throw error;
  }
  if (answer.ok && answer.body !== null && (answer.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return relayedResponse(answer, watchA2aTaskId(answer.body, followTask));
  followTask(await a2aTaskIdOfAnswer(answer));
  return relayedResponse(answer);
}

/**
 * The client's copy of a background chat's `202 Accepted`: its `Location` (the actor's
 * `/agent/runs/<id>`, unreachable from outside) becomes the edge's own `status/<id>`, or is
 * dropped when the instance does not expose `status`.
 */
function acceptedOnEdge(answer: Response, pool: ActorPool, runId: string): Response {
  const relayed = relayedResponse(answer);
  if (exposedOperations(pool).includes('status')) relayed.headers.set('Location', edgeRunPath(pool.ref, runId));
  else relayed.headers.delete('Location');
  return relayed;
}

/**
 * Answers `/api/v1/k/<ref>/<rest>`: admits the request (see `admit`), sends it to the next ready
 * replica with the owner's `X-Tenant-Id` and without the caller's credentials, and passes the
 * answer back as it comes (an SSE chat chunk by chunk), counting each successful chat turn for
 * reconciliation: a background chat (202) once its run has completed, its `Location` the edge's.
 * @param services the pools, keys and counters
 * @param request the client's request
 * @param ref the instance ref from the path
 * @param rest the path below `/api/v1/k/<ref>/`
 * @param requestId the gateway's request id
 */
export async function answerEdge(
  services: ExternalEdgeServices,
  request: Request,
  ref: string,
  rest: string,
  requestId: string,
): Promise<Response> {
  const { pool, operation, actorPath } = admit(services, request, ref, rest);
  const tenant = services.ownerTenant;
  const facts = { actorPath, tenant, prefix: edgeBasePath(ref), requestId };
  if (actorPath === ACTOR_PATHS.a2aCard) return answerA2aCard(pool, request, facts, ref);
  if (actorPath === ACTOR_PATHS.a2aJsonRpc) return answerA2a(services, request, pool, facts);
  if (operation.counts === 'none') return relayedResponse(await sendToReplica(pool, forwardedRequest(request, facts)));
  if (operation.counts === 'mcp') {
    const body = request.method === 'POST' ? await readCappedText(request, services.maxMcpBodyBytes) : undefined;
    const ids = body === undefined ? [] : mcpChatCallIds(body);
    if (ids.length === 0)
      return relayedResponse(
        await sendToReplica(pool, forwardedRequest(request, { ...facts, ...(body === undefined ? {} : { body }) })),
      );
    await services.reconciler.ensureBaseline(pool, tenant);
    services.answered.begin(ref);
    try {
      const answer = await sendToReplica(pool, forwardedRequest(request, { ...facts, body: body as string }));
      services.answered.add(ref, tenant, await succeededMcpChats(answer, ids));
      return relayedResponse(answer);
    } finally {
      services.answered.settle(ref);
    }
  }
  await services.reconciler.ensureBaseline(pool, tenant);
  services.answered.begin(ref);
  let answer: Response;
  try {
    answer = await sendToReplica(pool, forwardedRequest(request, facts));
  } catch (error) {
    services.answered.settle(ref);
    throw error;
  }
  const replayed = answer.headers.get('idempotent-replayed') === 'true';
  const count = (succeeded: boolean) => {
    if (succeeded && !replayed) services.answered.add(ref, tenant);
    services.answered.settle(ref);
  };
  const runId = answer.status === 202 ? runIdOfLocation(answer.headers.get('location')) : undefined;
  if (runId !== undefined) {
    // A 202 is a run under way, not an answered turn: it stays under way until the run ends.
    if (replayed) count(false);
    else services.runs.follow(pool, runId, tenant, requestId, count);
    return acceptedOnEdge(answer, pool, runId);
  }
  if (answer.ok && answer.body !== null && (answer.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return relayedResponse(answer, watchChatStream(answer.body, count));
  }
  count(answer.ok);
  return relayedResponse(answer);
}

/**
 * Reads a request body as text, refusing one over `maxBytes` with 413 `payload_too_large` (by
 * its `Content-Length`, or while reading a chunked one).
 * @param request the request
 * @param maxBytes the largest body read
 */
async function readCappedText(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () => new ActorError('payload_too_large', { detail: `The body is over ${maxBytes} bytes` });
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge();
  if (request.body === null) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}
