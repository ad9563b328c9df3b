import type {
  ActorDefinition,
  ActorMetadata,
  ConnectorDeclaration,
  OAuthProviderDeclaration,
  PanelDeclaration,
  SettingsSection,
} from '../core/actor-definition.js';

export type { ConnectorDeclaration, OAuthProviderDeclaration, PanelDeclaration } from '../core/actor-definition.js';
import type { JsonSchemaDocument } from './settings-json-schema.js';

/** The `schema_version` of configurations this package writes and reads. */
export const PLATFORM_CONFIG_SCHEMA_VERSION = '1.0';

/** How a route of the contract is present: required by the platform, recommended, always mounted, or gated by a template option. */
export type EndpointPresence = 'required' | 'recommended' | 'always' | 'conditional';

/** One route the actor mounts, as declared in `contract.endpoints`. */
export interface ContractEndpoint {
  readonly method: 'GET' | 'POST' | 'PUT' | 'ANY';
  readonly path: string;
  readonly presence: EndpointPresence;
}

/** A Kubernetes CPU and memory pair, e.g. `{cpu: "100m", memory: "128Mi"}`. */
interface ResourceQuantities {
  readonly cpu: string;
  readonly memory: string;
}

/** The `deployment` block: how the platform runs the actor's container. */
export interface PlatformDeployment {
  readonly image_repo?: string;
  readonly port: number;
  readonly health_path: string;
  readonly readiness_path: string | null;
  readonly metrics_path: string;
  readonly resources: { readonly requests: ResourceQuantities; readonly limits: ResourceQuantities };
  readonly replicas: { readonly min: number; readonly max: number };
  readonly env: Readonly<Record<string, string>>;
}

/** The template options, with the snake_case names of the template questions. */
export interface PlatformFeatures {
  readonly declare_readiness_probe: boolean;
  readonly include_panel: boolean;
  readonly fleet_mesh: boolean;
  readonly integration_type: 'none' | 'n8n';
  readonly platform_expose_external_api: boolean;
}

/** What an actor declares beside its card, options and settings for the configuration: panels, OAuth providers and connectors. */
export type PlatformDeclarations = Pick<ActorDefinition, 'panels' | 'oauth' | 'connectors'>;

/** The canonical actor configuration written to `src/platform/config.json` (DESIGN §7). */
export interface PlatformConfig {
  readonly schema_version: typeof PLATFORM_CONFIG_SCHEMA_VERSION;
  readonly actor: ActorMetadata;
  readonly contract: {
    readonly topic: 'actor';
    readonly version: '1.0';
    readonly endpoints: readonly ContractEndpoint[];
  };
  readonly deployment: PlatformDeployment;
  readonly features: PlatformFeatures;
  readonly external_api: { readonly enabled: boolean; readonly operations: readonly string[] };
  readonly sections: readonly SettingsSection[];
  readonly settings: JsonSchemaDocument;
  readonly panels: readonly PanelDeclaration[];
  readonly oauth: readonly OAuthProviderDeclaration[];
  readonly connectors: readonly ConnectorDeclaration[];
}
