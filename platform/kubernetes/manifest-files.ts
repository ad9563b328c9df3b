import { stringify } from 'yaml';
import type { ConfigReference, KubernetesObject, SecretReference } from './kubernetes-object.js';

/** The first line of every file the manifests write: a file without it is never overwritten. */
export const WRITTEN_BY_ACTORKIT = 'Written by actorkit from src/platform/config.json; regenerate rather than edit.';

/** The name of the file that lists what to create and apply. */
export const MANIFESTS_README = 'README.md';

/**
 * One actor's manifest file: every object as a YAML document (`---` between them), after a comment
 * naming the actor folder it came from.
 * @param actorDir the actor folder, as the author named it
 * @param objects the actor's objects
 */
export function manifestYaml(actorDir: string, objects: readonly KubernetesObject[]): string {
  const header = `# ${WRITTEN_BY_ACTORKIT}\n# Actor folder: ${actorDir}\n`;
  return header + objects.map((object) => `---\n${stringify(object, { lineWidth: 0 })}`).join('');
}

/** One actor as the README of the manifests folder lists it. */
interface ReadmeActor {
  readonly slug: string;
  readonly secrets: readonly SecretReference[];
  readonly configValues: readonly ConfigReference[];
}

/** What the README of the manifests folder lists. */
export interface ManifestsReadme {
  /** The folder, as the author named it. */
  readonly out: string;
  readonly namespace?: string;
  /** The actors, each written to `<slug>.yaml`. */
  readonly actors: readonly ReadmeActor[];
}

/**
 * The README of the manifests folder: the namespace, Secrets and ConfigMaps to create first
 * (`kubectl create secret generic … --from-literal=KEY="$KEY"`, values from the author's shell,
 * never from a file actorkit writes), then the `kubectl apply -f` command.
 * @param readme the folder, namespace and actors
 */
export function manifestsReadme(readme: ManifestsReadme): string {
  const ns = readme.namespace ? ` --namespace ${readme.namespace}` : '';
  const secrets = readme.actors.flatMap((actor) => actor.secrets);
  const configValues = readme.actors.flatMap((actor) => actor.configValues);
  const create =
    (what: string) =>
    ([name, keys]: [string, string[]]) =>
      `kubectl create ${what} ${name}${ns} ${keys.map((key) => `--from-literal=${key}="$${key}"`).join(' ')}`;
  const commands = [
    ...(readme.namespace ? [`kubectl create namespace ${readme.namespace}`] : []),
    ...groupKeys(secrets.map((reference) => [reference.secret, reference.key])).map(create('secret generic')),
    ...groupKeys(configValues.map((reference) => [reference.configMap, reference.key])).map(create('configmap')),
  ];
  const rows = readme.actors.flatMap((actor) => [
    ...actor.secrets.map(
      (reference) =>
        `| ${actor.slug} | \`${reference.variable}\` | Secret \`${reference.secret}\`, key \`${reference.key}\` |`,
    ),
    ...actor.configValues.map(
      (reference) =>
        `| ${actor.slug} | \`${reference.variable}\` | ConfigMap \`${reference.configMap}\`, key \`${reference.key}\` |`,
    ),
  ]);
  return [
    `<!-- ${WRITTEN_BY_ACTORKIT} -->`,
    '# Kubernetes manifests',
    '',
    `One file per actor: ${readme.actors.map((actor) => `\`${actor.slug}.yaml\``).join(', ')}. No file here holds a secret value.`,
    '',
    ...(commands.length > 0
      ? [
          '## 1. Create what the actors read (once)',
          '',
          ...(rows.length > 0
            ? [
                'Set each variable in your shell first; its value never lands in a file actorkit writes.',
                '',
                '| actor | variable | from |',
                '|---|---|---|',
                ...rows,
                '',
              ]
            : []),
          '```sh',
          ...commands,
          '```',
          '',
          '## 2. Apply',
        ]
      : ['## Apply']),
    '',
    '```sh',
    `kubectl apply -f ${readme.out}`,
    '```',
    '',
  ].join('\n');
}
/** Pairs grouped by their first element, keys deduplicated, in order of first appearance. */
function groupKeys(pairs: readonly (readonly [string, string])[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const [group, key] of pairs) {
    const keys = groups.get(group) ?? [];
    if (!keys.includes(key)) keys.push(key);
    groups.set(group, keys);
  }
  return [...groups];
}
