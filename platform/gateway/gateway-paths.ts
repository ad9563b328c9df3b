import { REGISTER_ACTOR_PATH } from '../../cli/library.js';
import { CHAT_SURFACES } from './edge-operations.js';

/**
 * The paths of the local platform's gateway, in one place: the routes mount from them, the
 * dashboard and `/platform/actors` print URLs from them, and the tests call them.
 */
export const GATEWAY_PATHS = {
  /** The dashboard (owner only). */
  dashboard: '/',
  /** The creator hub's registration page `publish` and the platform print: here, the dashboard, which lists every actor registered. */
  registerActor: REGISTER_ACTOR_PATH,
  /** Exchanges the owner token (form field `token`) for the owner cookie. */
  login: '/platform/login',
  /** The hosted actors, their replicas, edges and panels (owner only). */
  actors: '/platform/actors',
  /** The reconciliation report (owner only); `?refresh=true` reads every replica first. */
  reconciliation: '/platform/reconciliation',
  /** The prefix of the public external API edge: `/api/v1/k/<ref>/<operation>`. */
  edge: '/api/v1/k',
  /** The prefix of the owner's panel relay: `/relay/<ref>/panel/<slug>`. */
  relay: '/relay',
} as const;

/** `/platform/actors/<ref>/edge-key`: `GET` reveals the instance's edge key, `POST` rotates it (owner only). */
export function edgeKeyPath(ref: string): string {
  return `${GATEWAY_PATHS.actors}/${encodeURIComponent(ref)}/edge-key`;
}

/** The base of an instance's external edge, e.g. `/api/v1/k/<ref>`; the operations sit below it. */
export function edgeBasePath(ref: string): string {
  return `${GATEWAY_PATHS.edge}/${encodeURIComponent(ref)}`;
}

/** A run through the edge's `status`, e.g. `/api/v1/k/<ref>/status/<run id>`: the `Location` of a background chat on the edge. */
export function edgeRunPath(ref: string, runId: string): string {
  return `${edgeBasePath(ref)}/status/${encodeURIComponent(runId)}`;
}

/** A panel page through the relay, e.g. `/relay/<ref>/panel/<slug>`; its `/data` and `/action` sit below it. */
export function relayPanelPath(ref: string, slug: string): string {
  return `${GATEWAY_PATHS.relay}/${encodeURIComponent(ref)}/panel/${encodeURIComponent(slug)}`;
}

/** An instance's A2A JSON-RPC endpoint on the edge, e.g. `/api/v1/k/<ref>/chat/a2a`: the interface its edge card names. */
export function edgeA2aPath(ref: string): string {
  return `${edgeBasePath(ref)}/chat/${CHAT_SURFACES.a2a}`;
}
