import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { ensureBuilt, REPOSITORY_ROOT } from '../../test/support/built-package.js';
import {
  KUBERNETES_SCHEMA_VERSION,
  kubernetesProblems,
  schemaProblems,
  strictFieldProblems,
} from '../../test/kubernetes/kubernetes-schemas.js';
import { readImageRuntime } from './image-runtime.js';
import type { KubernetesObject } from './kubernetes-object.js';
import { type KubernetesManifestsSuccess, writeKubernetesManifests } from './write-kubernetes-manifests.js';

const EXAMPLES = ['examples/hello-actor', 'examples/mesh-actor', 'examples/panel-workflow-actor'];
const io = { cwd: REPOSITORY_ROOT };

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'actorkit-k8s-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function parseYamlFile(path: string): KubernetesObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((document) => {
    expect(document.errors).toEqual([]);
    return document.toJS() as KubernetesObject;
  });
}

function byKind(objects: readonly KubernetesObject[], kind: string): Record<string, any> {
  const found = objects.find((object) => object.kind === kind);
  expect(found, kind).toBeDefined();
  return found as Record<string, any>;
}

/** A copy of an example's package.json, Dockerfile and config.json, with the configuration changed by `change`. */
function actorCopy(name: string, change: (config: Record<string, any>) => void, dockerfile?: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'src', 'platform'), { recursive: true });
  cpSync(join(REPOSITORY_ROOT, 'examples/hello-actor/package.json'), join(dir, 'package.json'));
  if (dockerfile === undefined)
    cpSync(join(REPOSITORY_ROOT, 'examples/hello-actor/Dockerfile'), join(dir, 'Dockerfile'));
  else writeFileSync(join(dir, 'Dockerfile'), dockerfile);
  const config = JSON.parse(
    readFileSync(join(REPOSITORY_ROOT, 'examples/hello-actor/src/platform/config.json'), 'utf8'),
  );
  change(config);
  writeFileSync(join(dir, 'src/platform/config.json'), JSON.stringify(config, null, 2));
  return dir;
}

async function written(
  dirs: string[],
  options: Parameters<typeof writeKubernetesManifests>[1],
): Promise<KubernetesManifestsSuccess> {
  const result = await writeKubernetesManifests(dirs, { io, ...options });
  expect(result, JSON.stringify(result)).toMatchObject({ status: 'ok' });
  return result as KubernetesManifestsSuccess;
}

describe(`the manifests of the three examples, against the schemas of Kubernetes ${KUBERNETES_SCHEMA_VERSION}`, () => {
  let result: KubernetesManifestsSuccess;
  let files: Record<string, KubernetesObject[]>;
  beforeAll(async () => {
    result = await written(EXAMPLES, { out: join(scratch, 'examples'), namespace: 'actors' });
    files = Object.fromEntries(result.actors.map((actor) => [actor.slug, parseYamlFile(actor.file)]));
  });

  it('writes one file per actor and a README, and the YAML round-trips to the objects built', () => {
    expect(result.files.map((file) => file.slice(result.out.length + 1))).toEqual([
      'hello-actor.yaml',
      'mesh-actor.yaml',
      'panel-workflow-actor.yaml',
      'README.md',
    ]);
    const parsed = Object.values(files).flat();
    expect(parsed).toEqual(result.objects);
    const again = parsed.flatMap((object) => parseAllDocuments(stringify(object)).map((document) => document.toJS()));
    expect(again).toEqual(parsed);
  });

  it('validates every object, schema and strict fields', () => {
    const objects = Object.values(files).flat();
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual([
      'PersistentVolumeClaim/hello-actor-data',
      'Deployment/hello-actor',
      'Service/hello-actor',
      'PersistentVolumeClaim/mesh-actor-data',
      'Deployment/mesh-actor',
      'Service/mesh-actor',
      'PersistentVolumeClaim/panel-workflow-actor-data',
      'Deployment/panel-workflow-actor',
      'Service/panel-workflow-actor',
    ]);
    expect(kubernetesProblems(objects)).toEqual(objects.map(() => []));
  });

  it('takes the Deployment from config.json: image, port, probes, resources, replicas, environment, locked-down container', () => {
    for (const example of EXAMPLES) {
      const config = JSON.parse(readFileSync(join(REPOSITORY_ROOT, example, 'src/platform/config.json'), 'utf8'));
      const { version } = JSON.parse(readFileSync(join(REPOSITORY_ROOT, example, 'package.json'), 'utf8'));
      const deployment = byKind(files[config.actor.slug] ?? [], 'Deployment');
      const pod = deployment.spec.template.spec;
      const [container] = pod.containers;
      expect(deployment.metadata.namespace).toBe('actors');
      expect(deployment.spec.replicas).toBe(config.deployment.replicas.min);
      expect(container.image).toBe(`${config.deployment.image_repo}:v${version}`);
      expect(container.ports).toEqual([{ name: 'http', containerPort: config.deployment.port, protocol: 'TCP' }]);
      expect(container.livenessProbe.httpGet).toEqual({ path: config.deployment.health_path, port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: config.deployment.readiness_path, port: 'http' });
      expect(container.resources).toEqual(config.deployment.resources);
      expect(container.env).toContainEqual({ name: 'ACTOR_PLATFORM', value: 'true' });
      expect(container.env).toContainEqual({ name: 'PORT', value: String(config.deployment.port) });
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
      expect(container.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(container.volumeMounts).toEqual([
        { name: 'data', mountPath: '/app/data' },
        { name: 'tmp', mountPath: '/tmp' },
      ]);
      expect(byKind(files[config.actor.slug] ?? [], 'Service').spec.ports).toEqual([
        { name: 'http', port: config.deployment.port, targetPort: 'http', protocol: 'TCP' },
      ]);
    }
  });

  it('refers to secrets and placeholders by name and key, and writes no Secret and no value', () => {
    const mesh = byKind(files['mesh-actor'] ?? [], 'Deployment').spec.template.spec.containers[0];
    expect(mesh.env).toContainEqual({
      name: 'MESH_KEY',
      valueFrom: { secretKeyRef: { name: 'actorkit-mesh-default', key: 'MESH_KEY' } },
    });
    const panel = byKind(files['panel-workflow-actor'] ?? [], 'Deployment').spec.template.spec.containers[0];
    expect(panel.env).toContainEqual({
      name: 'WORKFLOW_BASE_URL',
      valueFrom: { configMapKeyRef: { name: 'panel-workflow-actor-env', key: 'WORKFLOW_BASE_URL' } },
    });
    expect(
      Object.values(files)
        .flat()
        .filter((object) => object.kind === 'Secret' || object.kind === 'ConfigMap'),
    ).toEqual([]);
    expect(result.actors.find((actor) => actor.slug === 'mesh-actor')?.secrets).toEqual([
      { secret: 'actorkit-mesh-default', key: 'MESH_KEY', variable: 'MESH_KEY' },
    ]);
    const readme = readFileSync(join(result.out, 'README.md'), 'utf8');
    expect(readme).toContain(
      'kubectl create secret generic actorkit-mesh-default --namespace actors --from-literal=MESH_KEY="$MESH_KEY"',
    );
    expect(readme).toContain(
      'kubectl create configmap panel-workflow-actor-env --namespace actors --from-literal=WORKFLOW_BASE_URL="$WORKFLOW_BASE_URL"',
    );
    expect(readme).toContain(`kubectl apply -f ${join(scratch, 'examples')}`);
  });

  it('writes again over its own files', async () => {
    const again = await written(EXAMPLES, { out: join(scratch, 'examples'), namespace: 'actors' });
    expect(again.files).toEqual(result.files);
  });
});

describe('the schema check is real validation', () => {
  let deployment: Record<string, any>;
  beforeAll(async () => {
    const result = await written(['examples/hello-actor'], { out: join(scratch, 'check') });
    deployment = byKind(result.objects, 'Deployment');
    expect(kubernetesProblems([deployment])).toEqual([[]]);
  });

  it('refuses a field of the wrong type', () => {
    const wrong = structuredClone(deployment);
    wrong.spec.replicas = 'two';
    expect(schemaProblems(wrong)).toEqual(['/spec/replicas must be integer']);
  });

  it('refuses a missing required field', () => {
    const missing = structuredClone(deployment);
    delete missing.spec.template.spec.containers[0].name;
    expect(schemaProblems(missing)).toEqual(['/spec/template/spec/containers/0 must have required property name']);
  });

  it('refuses a value outside an enum', () => {
    const outside = structuredClone(deployment);
    outside.spec.template.spec.containers[0].imagePullPolicy = 'Sometimes';
    expect(schemaProblems(outside)).toEqual([
      '/spec/template/spec/containers/0/imagePullPolicy must be equal to one of the allowed values',
    ]);
  });

  it('refuses an unknown field under strict mode, at any depth (which the OpenAPI schema alone lets through)', () => {
    const unknown = structuredClone(deployment);
    unknown.spec.template.spec.containers[0].livenessProbe.httpGet.pth = '/health';
    expect(schemaProblems(unknown)).toEqual([]);
    expect(strictFieldProblems([unknown])).toEqual([
      [expect.stringMatching(/'"?pth"?' does not exist in type 'IHTTPGetAction'/)],
    ]);
    const topLevel = structuredClone(deployment);
    topLevel.spec.replica = 2;
    expect(kubernetesProblems([topLevel])).toEqual([
      [expect.stringMatching(/'"?replica"?' does not exist in type 'IDeploymentSpec'/)],
    ]);
  });

  it('refuses a kind it has no schema for', () => {
    expect(kubernetesProblems([{ apiVersion: 'v1', kind: 'Pdo' }])).toEqual([['no schema for v1/Pdo']]);
  });
});

describe('what the declared deployment changes', () => {
  it('scales between replicas.min and replicas.max on PostgreSQL: autoscaler, disruption budget, DATABASE_URL from the Secret, no volume claim', async () => {
    const dir = actorCopy('scaled', (config) => {
      config.deployment.replicas = { min: 2, max: 5 };
      config.deployment.env.LLM_API_KEY = '${secret:LLM_API_KEY}';
      config.deployment.env.SHUTDOWN_GRACE_MS = '20000';
    });
    const result = await written([dir], { out: join(scratch, 'scaled-out'), imageTag: 'v9.9.9', meshGroup: 'weather' });
    const objects = parseYamlFile(join(scratch, 'scaled-out', 'hello-actor.yaml'));
    expect(objects.map((object) => object.kind)).toEqual([
      'Deployment',
      'Service',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
    ]);
    expect(kubernetesProblems(objects)).toEqual(objects.map(() => []));
    const deployment = byKind(objects, 'Deployment');
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.strategy.type).toBe('RollingUpdate');
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(25);
    const [container] = deployment.spec.template.spec.containers;
    expect(container.image).toBe('registry.example.com/actors/hello-actor:v9.9.9');
    expect(container.env).toContainEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'hello-actor-secrets', key: 'DATABASE_URL' } },
    });
    expect(container.env).toContainEqual({
      name: 'LLM_API_KEY',
      valueFrom: { secretKeyRef: { name: 'hello-actor-secrets', key: 'LLM_API_KEY' } },
    });
    expect(container.volumeMounts[0]).toEqual({ name: 'data', mountPath: '/app/data' });
    expect(deployment.spec.template.spec.volumes[0]).toEqual({ name: 'data', emptyDir: {} });
    expect(byKind(objects, 'HorizontalPodAutoscaler').spec).toMatchObject({
      minReplicas: 2,
      maxReplicas: 5,
      scaleTargetRef: { kind: 'Deployment', name: 'hello-actor' },
    });
    expect(readFileSync(join(scratch, 'scaled-out', 'README.md'), 'utf8')).toContain(
      'kubectl create secret generic hello-actor-secrets --from-literal=LLM_API_KEY="$LLM_API_KEY" --from-literal=DATABASE_URL="$DATABASE_URL"',
    );
    expect(result.warnings).toEqual([]);
  });

  it('runs a root image as it is, and says so', async () => {
    const dir = actorCopy(
      'rooted',
      () => {},
      'FROM node:20.19-bookworm-slim\nWORKDIR /app\nCOPY . .\nCMD ["node", "dist/main.node.js"]\n',
    );
    const result = await written([dir], { out: join(scratch, 'rooted-out') });
    const deployment = byKind(result.objects, 'Deployment');
    expect(deployment.spec.template.spec.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
    expect(deployment.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem).toBeUndefined();
    expect(result.objects.map((object) => object.kind)).toEqual(['Deployment', 'Service']);
    expect(result.warnings).toEqual([
      expect.stringContaining('sets no USER'),
      'hello-actor: no DATA_DIR in the Dockerfile, so the SQLite file lives in the container and is lost when the pod goes',
    ]);
    expect(kubernetesProblems(result.objects)).toEqual(result.objects.map(() => []));
  });

  it("locks down what actorkit's own Dockerfile.template builds: the user node (uid 1000) and DATA_DIR /app/data", async () => {
    const dir = join(scratch, 'template');
    mkdirSync(dir, { recursive: true });
    cpSync(join(REPOSITORY_ROOT, 'Dockerfile.template'), join(dir, 'Dockerfile'));
    expect(await readImageRuntime(dir)).toEqual({ uid: 1000, dataDir: '/app/data', reasons: [] });
  });
});

describe('refusals: a clear message, nothing written', () => {
  const refused = async (dirs: string[], out: string, options: Record<string, string> = {}) => {
    const result = await writeKubernetesManifests(dirs, { io, out: join(scratch, out), ...options });
    expect(existsSync(join(scratch, out)), `${out} was written`).toBe(false);
    return result;
  };

  it("a configuration that does not validate, with validate's problems", async () => {
    const dir = actorCopy('invalid', (config) => {
      config.deployment.replicas = { min: 3, max: 2 };
    });
    const result = await refused([dir], 'invalid-out');
    expect(result).toMatchObject({
      status: 'failed',
      code: 'validation_failed',
      actorDir: dir,
      problems: [
        expect.objectContaining({
          rule: 'H',
          pointer: '/deployment/replicas/min',
          message: 'replicas.min (3) exceeds replicas.max (2)',
        }),
      ],
    });
    expect(result).toMatchObject({ message: expect.stringContaining('does not validate') });
  });

  it('a folder without config.json, without package.json, or twice the same slug', async () => {
    const bare = join(scratch, 'bare');
    mkdirSync(bare, { recursive: true });
    expect(await refused([bare], 'bare-out')).toMatchObject({ status: 'refused', code: 'not_an_actor' });
    writeFileSync(join(bare, 'package.json'), '{"version":"1.0.0"}');
    expect(await refused([bare], 'bare-out')).toMatchObject({
      status: 'refused',
      code: 'no_platform_config',
      message: expect.stringContaining('actorkit validate'),
    });
    expect(await refused(['examples/hello-actor', 'examples/hello-actor'], 'twice-out')).toMatchObject({
      status: 'refused',
      code: 'duplicate_slug',
    });
    expect(await refused([], 'none-out')).toMatchObject({ status: 'refused', code: 'no_actor' });
  });

  it('a namespace or mesh group that is not a Kubernetes name, and the tag latest', async () => {
    expect(await refused(['examples/hello-actor'], 'ns-out', { namespace: 'Actors_1' })).toMatchObject({
      status: 'refused',
      code: 'invalid_name',
      message: expect.stringContaining("namespace 'Actors_1'"),
    });
    expect(await refused(['examples/mesh-actor'], 'group-out', { meshGroup: '-x' })).toMatchObject({
      status: 'refused',
      code: 'invalid_name',
    });
    expect(await refused(['examples/hello-actor'], 'latest-out', { imageTag: 'latest' })).toMatchObject({
      status: 'refused',
      code: 'latest_tag_refused',
    });
  });

  it('more than one replica on SQLite, and a value that mixes text with a placeholder', async () => {
    const sqlite = actorCopy('sqlite', (config) => {
      config.deployment.replicas = { min: 1, max: 3 };
      config.deployment.env.DATABASE_URL = 'file:/app/data/actor.db';
    });
    expect(await refused([sqlite], 'sqlite-out')).toMatchObject({
      status: 'refused',
      code: 'replicas_need_postgres',
      message: expect.stringContaining("make it '${secret:DATABASE_URL}'"),
    });
    const mixed = actorCopy('mixed', (config) => {
      config.deployment.env.LLM_BASE_URL = 'https://${MODEL_HOST}/v1';
    });
    expect(await refused([mixed], 'mixed-out')).toMatchObject({ status: 'refused', code: 'partial_placeholder' });
  });

  it('a file in the folder that actorkit did not write', async () => {
    const out = join(scratch, 'foreign-out');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'README.md'), '# my notes\n');
    const result = await writeKubernetesManifests(['examples/hello-actor'], { io, out });
    expect(result).toMatchObject({ status: 'refused', code: 'would_overwrite' });
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toBe('# my notes\n');
    expect(existsSync(join(out, 'hello-actor.yaml'))).toBe(false);
  });
});

describe('the built package, as an author scripts it', () => {
  it('writes the manifests through `actorkit/platform` (package.json exports, dist/), in a child process', () => {
    ensureBuilt();
    const out = join(scratch, 'built-out');
    const script = `const { writeKubernetesManifests } = await import('actorkit/platform');
const result = await writeKubernetesManifests(['examples/mesh-actor'], { out: ${JSON.stringify(out)}, meshGroup: 'weather' });
console.log(JSON.stringify({ status: result.status, files: result.files, secrets: result.actors?.[0]?.secrets }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: REPOSITORY_ROOT,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      status: 'ok',
      files: [join(out, 'mesh-actor.yaml'), join(out, 'README.md')],
      secrets: [{ secret: 'actorkit-mesh-weather', key: 'MESH_KEY', variable: 'MESH_KEY' }],
    });
    const objects = parseYamlFile(join(out, 'mesh-actor.yaml'));
    expect(kubernetesProblems(objects)).toEqual(objects.map(() => []));
  }, 120_000);
});
