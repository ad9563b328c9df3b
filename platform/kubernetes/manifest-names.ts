/** The value of `app.kubernetes.io/managed-by` and `part-of` on every object the manifests write. */
const MANAGER = 'actorkit';

/** The Secret holding an actor's own `${secret:NAME}` values: `<slug>-secrets`. */
export const actorSecretName = (slug: string): string => `${slug}-secrets`;

/** The ConfigMap holding an actor's `${NAME}` values: `<slug>-env`. */
export const actorConfigMapName = (slug: string): string => `${slug}-env`;

/** The PersistentVolumeClaim of a single-replica actor's SQLite file: `<slug>-data`. */
export const actorDataClaimName = (slug: string): string => `${slug}-data`;

/** The Secret every actor of one fleet-mesh group reads its `MESH_KEY` from: `actorkit-mesh-<group>`. */
export const meshSecretName = (group: string): string => `${MANAGER}-mesh-${group}`;

/** The labels that select an actor's pods (the Deployment's selector, the Service's, the budget's). */
export function selectorLabels(slug: string): Record<string, string> {
  return { 'app.kubernetes.io/name': slug };
}

/**
 * Every label of an actor's objects: the selector, its version (characters a label value refuses
 * become `_`), and actorkit as the manager.
 * @param slug the actor's slug
 * @param version its `package.json` version
 */
export function actorLabels(slug: string, version: string): Record<string, string> {
  return {
    ...selectorLabels(slug),
    'app.kubernetes.io/version': version.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 63),
    'app.kubernetes.io/component': 'actor',
    'app.kubernetes.io/part-of': MANAGER,
    'app.kubernetes.io/managed-by': MANAGER,
  };
}
