/** The metadata the manifests give every object. */
export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** One Kubernetes object as the manifests write it: `apiVersion`, `kind`, `metadata` and the kind's own fields. */
export interface KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
}

/** A `deployment.env` variable whose value comes from a Secret the author creates (never written by actorkit). */
export interface SecretReference {
  /** The Secret's name, e.g. `mesh-actor-secrets` or `actorkit-mesh-default`. */
  readonly secret: string;
  /** The key inside it, e.g. `MESH_KEY`. */
  readonly key: string;
  /** The container variable it fills. */
  readonly variable: string;
}

/** A `deployment.env` variable whose `${NAME}` value comes from a ConfigMap the author creates. */
export interface ConfigReference {
  readonly configMap: string;
  readonly key: string;
  readonly variable: string;
}
