import type { Hono } from 'hono';
import type { DocumentedOperation } from './documented-operation.js';
import type { ActorContext, ActorEnv } from './actor-context.js';

/**
 * A surface mounted on top of the always-present routes: owner panels, fleet-mesh peer
 * reads, the workflow proxy. The template passes the routers its options turn on, and
 * `createActorApp` mounts them, documents them in `/openapi.json` and starts them.
 */
export interface ActorRouter {
  /** Short name for logs, e.g. `panel`. */
  readonly name: string;
  /** Adds middleware that runs before the API-key check (it sees that refusal too), for a router that reshapes the refusals of its own paths. */
  mountBeforeAuth?(app: Hono<ActorEnv>, ctx: ActorContext): void;
  /** Adds the router's routes to the app; throw here for configuration mistakes. */
  mount(app: Hono<ActorEnv>, ctx: ActorContext): void;
  /** Loads what the router needs before the actor turns ready; a `StartupRefusal` stops the start. */
  start?(): Promise<void>;
  /** Releases what the router holds (open sessions), on shutdown after the requests in flight. */
  close?(): Promise<void>;
  /** The routes it adds, for `/openapi.json`; each one's `security` (default `apiKey`) sets its security requirement and 401 there. */
  operations?(ctx: ActorContext): DocumentedOperation[];
}
