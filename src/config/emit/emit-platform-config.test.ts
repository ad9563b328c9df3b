import { copyFile, mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validatePlatformConfig } from '../validate/validate-platform-config.js';
import { EmitError } from './emit-error.js';
import { emitPlatformConfig } from './emit-platform-config.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const sdkUrl = pathToFileURL(join(repoRoot, 'src/sdk/index.ts')).href;

const actorSource = (title: string) => `import * as v from 'valibot';
import { defineActorSections, platformField } from ${JSON.stringify(sdkUrl)};

export default {
  metadata: { name: ${JSON.stringify(title)}, slug: 'tiny-actor', version: '0.3.0', description: 'A tiny test actor.', domain: 'tiny', tags: ['test'] },
  features: { declareReadinessProbe: true, includePanel: false, fleetMesh: true, integrationType: 'none', exposeExternalApi: true },
  settings: v.object({
    greeting: v.optional(v.pipe(v.string(), platformField('tiny', { widget: 'text', order: 1 })), 'hi'),
    api_key: v.optional(v.pipe(v.string(), platformField('credentials', { widget: 'password', secret: true })), 'sk-never-emitted'),
  }),
  sections: defineActorSections([{ id: 'tiny', title: 'Tiny' }]),
};
`;

const packageJson = {
  name: 'tiny-actor',
  version: '0.3.0',
  type: 'module',
  actorkit: {
    deployment: { image_repo: 'ghcr.io/acme/tiny-actor', env: { LOG_LEVEL: 'debug' }, replicas: { max: 2 } },
  },
};

let workspace: string;

async function makeActor(
  name: string,
  options: { actor?: string | null; packageJson?: unknown } = {},
): Promise<string> {
  const dir = join(workspace, name);
  await mkdir(join(dir, 'src'), { recursive: true });
  await symlink(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  if (options.actor !== null) await writeFile(join(dir, 'src/actor.ts'), options.actor ?? actorSource('Tiny'));
  const pkg = options.packageJson ?? packageJson;
  await writeFile(join(dir, 'package.json'), typeof pkg === 'string' ? pkg : JSON.stringify(pkg, null, 2));
  return dir;
}

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'actorkit-emit-'));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('emitPlatformConfig', () => {
  it('writes src/platform/config.json that validates, then finds it up to date', async () => {
    const dir = await makeActor('fresh');
    const first = await emitPlatformConfig(dir);
    expect(first).toMatchObject({ state: 'missing', written: true, path: join(dir, 'src/platform/config.json') });
    const text = await readFile(first.path, 'utf8');
    expect(text).toBe(first.content);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toBe('  "schema_version": "1.0",');
    expect(validatePlatformConfig(JSON.parse(text))).toEqual({ valid: true, problems: [] });

    const second = await emitPlatformConfig(dir);
    expect(second).toMatchObject({ state: 'up-to-date', written: false, content: first.content });
  });

  it('renders byte-identical output on every run and keeps secrets out', async () => {
    const dir = await makeActor('deterministic');
    const runs = await Promise.all([
      emitPlatformConfig(dir, { check: true }),
      emitPlatformConfig(dir, { check: true }),
    ]);
    expect(runs[0].content).toBe(runs[1].content);
    expect(runs[0].content).not.toContain('sk-never-emitted');
    const config = JSON.parse(runs[0].content);
    expect(Object.keys(config)).toEqual([
      'schema_version',
      'actor',
      'contract',
      'deployment',
      'features',
      'external_api',
      'sections',
      'settings',
      'panels',
      'oauth',
      'connectors',
    ]);
    expect(config.deployment.env).toEqual({
      ACTOR_PLATFORM: 'true',
      LOG_LEVEL: 'debug',
      MESH_KEY: '${secret:MESH_KEY}',
    });
    expect(config.deployment.replicas).toEqual({ min: 1, max: 2 });
    expect(config.contract.endpoints).toContainEqual({
      method: 'GET',
      path: '/api/tiny/_peer_check',
      presence: 'conditional',
    });
    expect(config.settings.properties.api_key).not.toHaveProperty('default');
  });

  it('in check mode flags a hand-edited file, names the first differing line and writes nothing', async () => {
    const dir = await makeActor('edited');
    const { path, content } = await emitPlatformConfig(dir);
    const edited = content.replace('"port": 8080', '"port": 9090');
    await writeFile(path, edited);
    const check = await emitPlatformConfig(dir, { check: true });
    expect(check.state).toBe('stale');
    expect(check.written).toBe(false);
    expect(check.difference?.actual).toContain('"port": 9090');
    expect(check.difference?.expected).toContain('"port": 8080');
    expect(await readFile(path, 'utf8')).toBe(edited);

    const repaired = await emitPlatformConfig(dir);
    expect(repaired).toMatchObject({ state: 'stale', written: true });
    expect(await readFile(path, 'utf8')).toBe(content);
  });

  it('in check mode reports a missing file without creating it', async () => {
    const dir = await makeActor('missing');
    const check = await emitPlatformConfig(dir, { check: true });
    expect(check).toMatchObject({ state: 'missing', written: false });
    await expect(readFile(check.path, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('flags a change to the actor code as stale', async () => {
    const dir = await makeActor('changed');
    await emitPlatformConfig(dir);
    await writeFile(join(dir, 'src/actor.ts'), actorSource('Tiny Renamed'));
    const check = await emitPlatformConfig(dir, { check: true });
    expect(check.state).toBe('stale');
    expect(check.config.actor.name).toBe('Tiny Renamed');
  });

  it('emits a valid configuration for the example actor, resolving actorkit through its tsconfig paths', async () => {
    const dir = await makeActor('hello-copy', { actor: null });
    await copyFile(join(repoRoot, 'examples/hello-actor/src/actor.ts'), join(dir, 'src/actor.ts'));
    const paths = { actorkit: [join(repoRoot, 'src/index.ts')], 'actorkit/sdk': [join(repoRoot, 'src/sdk/index.ts')] };
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', paths } }),
    );
    const { config, state } = await emitPlatformConfig(dir);
    expect(state).toBe('missing');
    expect(config.actor.slug).toBe('hello-actor');
    expect(validatePlatformConfig(JSON.parse(JSON.stringify(config)))).toEqual({ valid: true, problems: [] });
  });

  it('refuses a missing actor module, a module without a definition and a broken package.json with an EmitError', async () => {
    const noModule = await makeActor('no-module', { actor: null });
    await expect(emitPlatformConfig(noModule)).rejects.toMatchObject({
      name: 'EmitError',
      code: 'actor_module_missing',
    });

    const notDefinition = await makeActor('not-definition', { actor: 'export default { metadata: {} };\n' });
    const error = await emitPlatformConfig(notDefinition).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EmitError);
    expect(error).toMatchObject({
      code: 'invalid_definition',
      message: expect.stringContaining('missing: features, settings, sections'),
    });

    const syntax = await makeActor('syntax-error', { actor: 'export default {\n' });
    await expect(emitPlatformConfig(syntax)).rejects.toMatchObject({ code: 'actor_module_failed' });

    const badJson = await makeActor('bad-json', { packageJson: '{ not json' });
    await expect(emitPlatformConfig(badJson)).rejects.toMatchObject({ code: 'package_json_invalid' });

    const noPackage = await makeActor('no-package');
    await rm(join(noPackage, 'package.json'));
    await expect(emitPlatformConfig(noPackage)).rejects.toMatchObject({
      code: 'package_json_missing',
      message: expect.stringContaining('needs a package.json'),
    });
  });
});
