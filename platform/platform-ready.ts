import type { ReplicaView } from './actor-pool.js';

/** One hosted actor, as `actorkit platform` reports it. */
export interface HostedActorSummary {
  readonly ref: string;
  readonly slug: string;
  /** The actor folder, or the image reference of an actor hosted from `--image`. */
  readonly dir: string;
  /** The published image its replicas run as containers, when it was hosted from `--image`. */
  readonly image?: string;
  /** Its replicas when the platform came up (pids, addresses, states). */
  readonly replicas: readonly ReplicaView[];
  readonly database: 'postgres' | 'sqlite';
  /** The service address siblings use (`<REF>_SERVICE_HOST`/`_PORT`). */
  readonly serviceUrl: string;
  /** `{platform}/api/v1/k/<ref>/`, when the actor allows the external edge. */
  readonly edgeUrl: string | undefined;
  /** The instance's edge key (sent as `X-API-Key`), when it has an edge; kept in {@link edgeKeyFile}. */
  readonly edgeKey: string | undefined;
  /** Where the edge key is kept between runs (mode 0600), when the instance has an edge. */
  readonly edgeKeyFile: string | undefined;
  /** The operations its edge offers (`external_api.operations`). */
  readonly edgeOperations: readonly string[];
  /** Its panels through the owner's relay, e.g. `{platform}/relay/<ref>/panel/<slug>`. */
  readonly panelUrls: readonly string[];
  readonly meshGroup: string | undefined;
  /** The creator-hub steps `publish` prints, against the local platform. */
  readonly registrationSteps: readonly string[];
}

/** What `actorkit platform --json` prints once every actor is up. */
export interface PlatformReady {
  readonly event: 'platform_ready';
  readonly url: string;
  /** The dashboard's login link, `{url}/?token=<owner token>`: opening it logs the owner in. */
  readonly dashboardUrl: string;
  /** The owner's token: `Authorization: Bearer <token>` opens the panel relay and `/platform/*`. */
  readonly ownerToken: string;
  /** Where the owner token is kept between runs (mode 0600). */
  readonly ownerTokenFile: string;
  readonly stateDir: string;
  readonly secretsFile: string;
  readonly actors: readonly HostedActorSummary[];
}
