/**
 * `actorkit/platform`: the local platform, a second product beside the CLI. It hosts actors as
 * the platform does (replicas on PostgreSQL, readiness, secrets, mesh keys, the external edge,
 * the panel relay, reconciliation, the dashboard) and writes the Kubernetes manifests that run
 * them elsewhere. `actorkit platform` is a thin shell over it; it uses the package only through
 * its public entries (`actorkit`, `actorkit/sdk`, `actorkit/http`, `actorkit/cli`).
 * @module actorkit/platform
 */

// Hosting actors: the gateway, the replicas, the dashboard
export { runPlatform, type RunPlatformOptions, type RunPlatformResult } from './run-platform.js';
export type { PlatformReady, HostedActorSummary } from './platform-ready.js';
export {
  DEFAULT_PLATFORM_PORT,
  DEFAULT_STATE_DIR,
  DEFAULT_SECRETS_FILE,
  DEFAULT_MESH_GROUP,
} from './platform-defaults.js';
export type { ActorPool, ReplicaView, ReplicaState } from './actor-pool.js';
export type { RegistrationFailure } from './register-actor.js';

// Kubernetes manifests
export {
  writeKubernetesManifests,
  type KubernetesManifestsOptions,
  type KubernetesManifestsSuccess,
  type KubernetesManifestsFailure,
  type ActorManifestSummary,
} from './kubernetes/write-kubernetes-manifests.js';
export type {
  KubernetesObject,
  ObjectMeta,
  SecretReference,
  ConfigReference,
} from './kubernetes/kubernetes-object.js';
