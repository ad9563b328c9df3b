import type { ActorTool } from '../agent/actor-tool.js';
import type { ChatHandler } from '../invoke/chat-handler.js';
import type { ChatModel } from '../agent/chat-model.js';
import type { ModelProvider } from '../agent/model-provider.js';
import type { ToolRegistry } from '../agent/tool-registry.js';
import type { ReadinessChecks } from '../context/actor-context.js';
import type { DomainHealthChecks } from '../context/domain-health-monitor.js';
import type { ActorRouter } from '../context/actor-router.js';
import type { ActorDefinition } from '../core/actor-definition.js';
import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { Logger } from '../log/logger.js';
import type { OAuthFlow } from '../oauth/oauth-flow.js';
import type { Store } from '../store/store.js';
import type { PeerReadHandlers } from './definition-routers.js';

/** Options of `createActorApp`. */
export interface CreateActorAppOptions {
  /** The actor's card, template options, settings schema and sections. */
  readonly definition: ActorDefinition;
  /** Environment variables; defaults to `process.env` where the runtime has it. */
  readonly env?: ActorEnvironment;
  /** The store; defaults to the one `DATABASE_URL` names (SQLite under `DATA_DIR` when unset). */
  readonly store?: Store;
  /** Answers chat turns; defaults to the agent loop (history, tools, `model`). */
  readonly chatHandler?: ChatHandler;
  /** The agent's model; defaults to the one `LLM_*` names (settings, then environment), else the offline model. */
  readonly model?: ChatModel;
  /**
   * The model providers `LLM_PROVIDER` chooses from: `MODEL_PROVIDERS` by default; an actor adds
   * its own as `[...MODEL_PROVIDERS, defineModelProvider({…})]`.
   */
  readonly modelProviders?: readonly ModelProvider[];
  /** The actor's domain tools (the tools of `MCP_SERVERS` follow them), or a `ToolRegistry` of its own. */
  readonly tools?: readonly ActorTool[] | ToolRegistry;
  /** System instructions the agent sends first on every turn. */
  readonly instructions?: string;
  /** The actor's own readiness checks, e.g. a domain client's `readinessChecks()`. */
  readonly readinessChecks?: ReadinessChecks;
  /**
   * The actor's own health checks, e.g. `{weather: () => client.healthCheck()}`: run in the
   * background (at start, then when `/health` finds the last run older than 5 s), each bounded by
   * `HEALTH_CHECK_TIMEOUT_MS`; `/health` lists the last result of each under `checks.<name>` and
   * says `degraded` while one is not `pass`. They never make `/ready` fail.
   */
  readonly healthChecks?: DomainHealthChecks;
  /** The baked `src/platform/config.json`, served by `GET /api/actor/platform-config`. */
  readonly platformConfig?: unknown;
  /** Structured logger; defaults to JSON lines at `LOG_LEVEL`. */
  readonly logger?: Logger;
  /** The OAuth flow; defaults to one over the providers `definition.oauth` declares (configured from the environment), else none. */
  readonly oauth?: OAuthFlow;
  /** The handler of each peer read `definition.peerReads` declares, keyed by its path (`/lookup/:topic`). */
  readonly peerReads?: PeerReadHandlers;
  /**
   * Routers built by hand, mounted after those the definition declares (panels, peer reads,
   * workflow proxy); one named like a declared surface (`panel`, `mesh`, `workflow`) replaces it.
   */
  readonly routers?: readonly ActorRouter[];
}
