import type * as v from 'valibot';

/** The marketplace card fields an actor declares (`GET /api/actor/metadata`). */
export interface ActorMetadata {
  readonly name: string;
  /** kebab-case identifier, unique on the platform. */
  readonly slug: string;
  readonly version: string;
  readonly description: string;
  /** The actor's domain module, e.g. `weather`; namespaces its tools and peer routes. */
  readonly domain: string;
  readonly tags: readonly string[];
  readonly icon?: string;
}

/** The template options that gate behaviour (interface document, "Template options"). */
export interface ActorFeatures {
  /** Default true: `/ready` is declared as the readiness probe. */
  readonly declareReadinessProbe: boolean;
  /** Mounts the owner panel routes. */
  readonly includePanel: boolean;
  /** Mounts the peer-read routes under `/api/<domain>/`. */
  readonly fleetMesh: boolean;
  /** `n8n` mounts the workflow proxy; `none` mounts nothing. */
  readonly integrationType: 'none' | 'n8n';
  /** Default true: the platform may expose `chat`, `status` and `health` on its public edge. */
  readonly exposeExternalApi: boolean;
  /** Default false: mounts `/mcp`, the actor as an MCP server (needs `@modelcontextprotocol/sdk` installed). */
  readonly exposeMcp?: boolean;
  /** Default false: mounts `POST /agent/ag-ui`, the actor as an AG-UI agent (docs/surfaces.md). */
  readonly exposeAgUi?: boolean;
  /** Default false: mounts the A2A agent card and `/a2a` (JSON-RPC), other agents' way in (needs `@a2a-js/sdk` installed). */
  readonly exposeA2a?: boolean;
}

/** A group of settings shown together in the platform's UI. */
export interface SettingsSection {
  readonly id: string;
  readonly title: string;
  readonly description?: string;
  readonly order?: number;
}

/**
 * An owner-facing panel (`include_panel`), served under `/panel/<slug>`. The definition holds the
 * whole panel — `statsPanel()` or a `Panel` with its `data` loader, page and actions — and
 * `createActorApp` checks that at setup; the configuration keeps the slug, title and description.
 */
export interface PanelDeclaration {
  readonly slug: string;
  readonly title: string;
  readonly description?: string;
}

/** An OAuth provider the actor connects to; endpoints and client come from the environment or settings, never from here. */
export interface OAuthProviderDeclaration {
  readonly provider: string;
  readonly title?: string;
  readonly scopes?: readonly string[];
}

/** A platform connector that may feed settings (`x-platform-fed-by-connector`). */
export interface ConnectorDeclaration {
  readonly id: string;
  readonly title: string;
  readonly description?: string;
}

/**
 * A read-only route sibling actors may call (`fleet_mesh`), under `/api/<domain>`; the handler
 * that answers it is wired in `app.ts` (`createActorApp({ peerReads })`), keyed by this path.
 */
export interface PeerReadDeclaration {
  /** Path below `/api/<domain>`, e.g. `/lookup/:topic`. */
  readonly path: string;
  /** One line for `/openapi.json`. */
  readonly summary?: string;
}

/** Any valibot object schema describing an actor's settings. */
export type SettingsSchema = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;

/**
 * Everything static about an actor: read by the runtime (`createActorApp`) and by the
 * configuration emitter, so both describe the same actor.
 */
export interface ActorDefinition<TSettings extends SettingsSchema = SettingsSchema> {
  readonly metadata: ActorMetadata;
  readonly features: ActorFeatures;
  /** The settings schema; fields carry `platformField(...)` annotations. */
  readonly settings: TSettings;
  /** The actor's own sections, merged after the template's. */
  readonly sections: readonly SettingsSection[];
  /** Settings keys that only take effect after a restart (reported by `PUT /settings`). */
  readonly restartRequired?: readonly (keyof v.InferOutput<TSettings> & string)[];
  /** The owner panels, mounted when `features.includePanel` is on. */
  readonly panels?: readonly PanelDeclaration[];
  /** The peer-read routes, mounted under `/api/<domain>` when `features.fleetMesh` is on. */
  readonly peerReads?: readonly PeerReadDeclaration[];
  /** The OAuth providers `/oauth/authorize` offers. */
  readonly oauth?: readonly OAuthProviderDeclaration[];
  /** The platform connectors settings may be fed by. */
  readonly connectors?: readonly ConnectorDeclaration[];
}

/** Default template options for a new actor. */
export const defaultActorFeatures: ActorFeatures = {
  declareReadinessProbe: true,
  includePanel: false,
  fleetMesh: false,
  integrationType: 'none',
  exposeExternalApi: true,
  exposeMcp: false,
  exposeAgUi: false,
  exposeA2a: false,
};
