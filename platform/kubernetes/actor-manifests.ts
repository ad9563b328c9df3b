import type { PlatformConfig } from '../../src/sdk/index.js';
import { ENVIRONMENT_VARIABLES } from '../../src/index.js';
import { containerEnvironment } from './container-environment.js';
import type { ImageRuntime } from './image-runtime.js';
import type { ConfigReference, KubernetesObject, ObjectMeta, SecretReference } from './kubernetes-object.js';
import { actorDataClaimName, actorLabels, selectorLabels } from './manifest-names.js';
import { PROBE_TIMEOUT_SECONDS, READINESS_FAILURE_THRESHOLD } from '../probe-rules.js';

/** What one actor's manifests are written from. */
export interface ActorManifestSource {
  /** The actor's `src/platform/config.json`. */
  readonly config: PlatformConfig;
  /** `package.json`'s version. */
  readonly version: string;
  /** `<repo>:<tag>`, as `publish` pushes it. */
  readonly image: string;
  /** What the actor's Dockerfile says about its user and `DATA_DIR`. */
  readonly runtime: ImageRuntime;
  readonly namespace?: string;
  /** The fleet-mesh group whose Secret holds `MESH_KEY`. */
  readonly meshGroup: string;
}

/** One actor's objects, and the Secrets and ConfigMaps they read that the author creates. */
export interface ActorManifests {
  readonly objects: readonly KubernetesObject[];
  readonly secrets: readonly SecretReference[];
  readonly configValues: readonly ConfigReference[];
  /** What the author should know: a container that cannot be locked down, a volume it cannot have. */
  readonly warnings: readonly string[];
}

/** The size of the volume claimed for a single-replica actor's SQLite file. */
const DATA_VOLUME_SIZE = '1Gi';

/** The CPU use, in percent of the request, at which the autoscaler adds a replica. */
const AUTOSCALE_CPU_PERCENT = 70;

/** Seconds a pod gets after SIGTERM beyond the actor's own `SHUTDOWN_GRACE_MS`, so the drain ends before Kubernetes kills it. */
const TERMINATION_MARGIN_S = 5;

/** The one folder besides `DATA_DIR` a read-only container may write: Node's temporary folder. */
const TMP_DIR = '/tmp';

/**
 * The Kubernetes objects of one actor, from its `src/platform/config.json`: a Deployment (the
 * declared port, probes, resources and `replicas.min`; the environment with every secret as a
 * `secretKeyRef`; non-root with a read-only root file system when the image allows it), a Service,
 * a PersistentVolumeClaim for the SQLite file of a single-replica actor without `DATABASE_URL`, a
 * HorizontalPodAutoscaler when `replicas.max > replicas.min` and a PodDisruptionBudget when
 * `replicas.min >= 2`. No Secret or ConfigMap: their names and keys are returned for the author.
 * @param source the configuration, image, Dockerfile facts, namespace and mesh group
 */
export function actorManifests(source: ActorManifestSource): ActorManifests {
  const { config, version, image, runtime } = source;
  const { slug } = config.actor;
  const { deployment } = config;
  const environment = containerEnvironment(config, source.meshGroup);
  const meta = (name: string): ObjectMeta => ({
    name,
    ...(source.namespace ? { namespace: source.namespace } : {}),
    labels: actorLabels(slug, version),
  });
  const hardened = runtime.uid !== undefined && runtime.dataDir !== undefined;
  const claimData = !environment.databaseConfigured && runtime.dataDir !== undefined;
  const warnings = [
    ...(hardened
      ? []
      : [
          `${slug}: the container runs without a read-only root file system${runtime.uid === undefined ? ' and as the image user' : ''}: ${runtime.reasons.join('; ')}`,
        ]),
    ...(!environment.databaseConfigured && runtime.dataDir === undefined
      ? [
          `${slug}: no DATA_DIR in the Dockerfile, so the SQLite file lives in the container and is lost when the pod goes`,
        ]
      : []),
  ];
  const probe = (path: string, periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path, port: 'http' },
    periodSeconds,
    timeoutSeconds: PROBE_TIMEOUT_SECONDS,
    failureThreshold,
  });
  const volumes = [
    ...(runtime.dataDir === undefined
      ? []
      : [
          claimData
            ? { name: 'data', persistentVolumeClaim: { claimName: actorDataClaimName(slug) } }
            : { name: 'data', emptyDir: {} },
        ]),
    ...(hardened ? [{ name: 'tmp', emptyDir: {} }] : []),
  ];
  const mounts = [
    ...(runtime.dataDir === undefined ? [] : [{ name: 'data', mountPath: runtime.dataDir }]),
    ...(hardened ? [{ name: 'tmp', mountPath: TMP_DIR }] : []),
  ];
  const container = {
    name: 'actor',
    image,
    imagePullPolicy: 'IfNotPresent',
    ports: [{ name: 'http', containerPort: deployment.port, protocol: 'TCP' }],
    env: environment.env,
    resources: { requests: { ...deployment.resources.requests }, limits: { ...deployment.resources.limits } },
    startupProbe: probe(deployment.health_path, 2, 30),
    livenessProbe: probe(deployment.health_path, 10, 3),
    ...(deployment.readiness_path === null
      ? {}
      : { readinessProbe: probe(deployment.readiness_path, 5, READINESS_FAILURE_THRESHOLD) }),
    securityContext: {
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      ...(hardened ? { readOnlyRootFilesystem: true, runAsNonRoot: true } : {}),
    },
    ...(mounts.length > 0 ? { volumeMounts: mounts } : {}),
  };
  const podSecurity = {
    seccompProfile: { type: 'RuntimeDefault' },
    ...(runtime.uid === undefined
      ? {}
      : { runAsNonRoot: true, runAsUser: runtime.uid, runAsGroup: runtime.uid, fsGroup: runtime.uid }),
  };
  const objects: KubernetesObject[] = [];
  if (claimData) {
    objects.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: meta(actorDataClaimName(slug)),
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: DATA_VOLUME_SIZE } } },
    });
  }
  objects.push({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(slug),
    spec: {
      replicas: deployment.replicas.min,
      selector: { matchLabels: selectorLabels(slug) },
      // A ReadWriteOnce volume cannot be attached to the old and the new pod at once.
      strategy: claimData
        ? { type: 'Recreate' }
        : { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: {
          labels: actorLabels(slug, version),
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(deployment.port),
            'prometheus.io/path': deployment.metrics_path,
          },
        },
        spec: {
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: terminationGraceSeconds(deployment.env),
          securityContext: podSecurity,
          containers: [container],
          ...(volumes.length > 0 ? { volumes } : {}),
        },
      },
    },
  });
  objects.push({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta(slug),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(slug),
      ports: [{ name: 'http', port: deployment.port, targetPort: 'http', protocol: 'TCP' }],
    },
  });
  if (deployment.replicas.max > deployment.replicas.min) {
    objects.push({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta(slug),
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: slug },
        minReplicas: Math.max(1, deployment.replicas.min),
        maxReplicas: deployment.replicas.max,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: AUTOSCALE_CPU_PERCENT } },
          },
        ],
      },
    });
  }
  if (deployment.replicas.min >= 2) {
    objects.push({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta(slug),
      spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(slug) } },
    });
  }
  return { objects, secrets: environment.secrets, configValues: environment.configValues, warnings };
}

/** `SHUTDOWN_GRACE_MS` (declared, else its default) in whole seconds, plus a margin. */
function terminationGraceSeconds(env: Readonly<Record<string, string>>): number {
  const declared = Number(env['SHUTDOWN_GRACE_MS' satisfies keyof typeof ENVIRONMENT_VARIABLES]);
  const graceMs =
    Number.isFinite(declared) && declared > 0 ? declared : ENVIRONMENT_VARIABLES.SHUTDOWN_GRACE_MS.default;
  return Math.ceil(graceMs / 1000) + TERMINATION_MARGIN_S;
}
