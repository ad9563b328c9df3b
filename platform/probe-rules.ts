/**
 * How long one probe of an actor's replica may take before it counts as failed: in the
 * Kubernetes manifests (`timeoutSeconds` of every probe) and for `actorkit platform`'s replicas.
 */
export const PROBE_TIMEOUT_SECONDS = 2;

/**
 * How many readiness probes in a row must fail before a ready replica is taken out of rotation:
 * the manifests' `readinessProbe.failureThreshold`, and the rule `actorkit platform` applies to
 * its replicas, so a replica slow for one probe under load keeps its traffic in both.
 */
export const READINESS_FAILURE_THRESHOLD = 2;
