import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDS_VALID } from '../support/ends-valid.js';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { createStandInContainerCli } from './support/stand-in-container-cli.js';
import { localTemplate, temporaryFolder } from './support/template-repo.js';

const BINARY = join(REPOSITORY_ROOT, 'dist', 'cli', 'main.js');
const folder = temporaryFolder();

beforeAll(() => {
  ensureBuilt();
  expect(existsSync(BINARY)).toBe(true);
});
afterAll(() => folder.cleanup());

const ACTOR_TEMPLATE = {
  'template.yml': `_subdirectory: template
actor_name:
  type: str
  validator: {regex: "^[a-z][a-z0-9-]*$", message: "lower-case letters, digits and dashes"}
image_repo:
  type: str
  default: "registry.example.com/acme/{{ actor_name }}"
`,
  'template/package.json.njk': `{
  "name": "{{ actor_name }}",
  "version": "0.3.0",
  "type": "module",
  "actorkit": { "deployment": { "image_repo": "{{ image_repo }}" } }
}
`,
  'template/Dockerfile': 'FROM node:20-alpine\n',
  'template/src/actor.ts.njk': `import * as v from 'valibot';

export default {
  metadata: { name: '{{ actor_name }}', slug: '{{ actor_name }}', version: '0.3.0', description: 'An actor', domain: 'demo', tags: [] },
  features: { declareReadinessProbe: true, includePanel: false, fleetMesh: false, integrationType: 'none', exposeExternalApi: true },
  settings: v.object({
    greeting: v.optional(v.pipe(v.string(), v.metadata({ 'x-platform-section': 'behaviour', 'x-platform-managed-by': 'user' })), 'Hi'),
  }),
  sections: [{ id: 'behaviour', title: 'Behaviour' }],
};
`,
};

function actorkit(args: string[], cwd: string, env: Record<string, string | undefined>) {
  const result = spawnSync(process.execPath, [BINARY, ...args], { cwd, env, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the built actorkit binary, end to end', () => {
  it('renders a new actor, validates it, and publishes it with the container CLI', () => {
    const template = localTemplate(folder.dir, ACTOR_TEMPLATE);
    const containerCli = createStandInContainerCli(folder.dir);
    const env = containerCli.env({ PLATFORM_URL: 'https://hub.example.org' });

    const created = actorkit(['new', 'demo-actor', 'demo', '--local', template, '--defaults'], folder.dir, env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Next: cd demo && actorkit validate .\n');
    const actor = join(folder.dir, 'demo');

    // `npm install` stands in for: the template's only runtime dependency, linked.
    mkdirSync(join(actor, 'node_modules'));
    symlinkSync(join(REPOSITORY_ROOT, 'node_modules', 'valibot'), join(actor, 'node_modules', 'valibot'));

    // `new` emitted the configuration, so the fresh actor validates at once.
    const fresh = actorkit(['validate', '.'], actor, env);
    expect(fresh.stdout).toMatch(ENDS_VALID);
    expect(fresh.code).toBe(0);

    // A hand edit makes it stale; `validate --write` emits it again.
    const configPath = join(actor, 'src', 'platform', 'config.json');
    writeFileSync(
      configPath,
      readFileSync(configPath, 'utf8').replace('"schema_version": "1.0"', '"schema_version": "0.9"'),
    );
    const stale = actorkit(['validate', '.'], actor, env);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('- [emitter] /: src/platform/config.json is stale');
    expect(actorkit(['validate', '--write', '.'], actor, env).code).toBe(0);
    const checked = actorkit(['validate', '.'], actor, env);
    expect(checked.stdout).toMatch(ENDS_VALID);
    expect(checked.code).toBe(0);

    const refused = actorkit(['publish', '.'], actor, env);
    expect(refused.code).toBe(2);
    const published = actorkit(['publish', '.', '--yes'], actor, env);
    expect(published.code).toBe(0);
    expect(published.stdout).toContain('1. Open https://hub.example.org/home/creator/register-actor\n');
    expect(containerCli.calls()).toEqual([
      ['manifest', 'inspect', 'registry.example.com/acme/demo-actor:v0.3.0'],
      ['build', '-f', join(actor, 'Dockerfile'), '-t', 'registry.example.com/acme/demo-actor:v0.3.0', actor],
      ['push', 'registry.example.com/acme/demo-actor:v0.3.0'],
    ]);
    expect(execFileSync('git', ['-C', template, 'status', '--porcelain'], { encoding: 'utf8' })).toBe('');
  });

  it('answers --help on every verb with exit 0 and bad usage with exit 2', () => {
    for (const verb of ['new', 'validate', 'publish']) {
      const help = actorkit([verb, '--help'], folder.dir, { PATH: process.env.PATH });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`USAGE actorkit ${verb} [OPTIONS]`);
      expect(help.stdout).toContain('--json');
    }
    const bad = actorkit(['validate', '--frobnicate'], folder.dir, { PATH: process.env.PATH });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown option --frobnicate');
    const here = actorkit(['validate'], folder.dir, { PATH: process.env.PATH });
    expect(here.code).toBe(2);
    expect(here.stderr).toBe(`error: ${folder.dir} is not an actor folder (no package.json)\n`);
  });
});
