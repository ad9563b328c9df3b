import { mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFiles } from './template-repo.js';

const REPOSITORY_ROOT = resolve(import.meta.dirname, '../../..');

/** Options of a fixture actor. */
export interface ActorFixtureOptions {
  /** The section the `greeting` field claims (rule A fails when it is not declared). */
  readonly greetingSection?: string;
  /** Extra `package.json` fields, merged over the defaults. */
  readonly packageJson?: Record<string, unknown>;
  /** Replaces `src/actor.ts`. */
  readonly actorSource?: string;
}

/**
 * Writes a small actor (package.json, src/actor.ts, Dockerfile) into `dir`. It imports only
 * valibot, linked from this repository's node_modules, so no actorkit is installed for it.
 */
export function writeActorFixture(dir: string, options: ActorFixtureOptions = {}): string {
  const section = options.greetingSection ?? 'behaviour';
  writeFiles(dir, {
    'package.json': `${JSON.stringify(
      {
        name: 'weather-actor',
        version: '1.2.0',
        type: 'module',
        actorkit: { deployment: { image_repo: 'registry.example.com/acme/weather' } },
        ...options.packageJson,
      },
      null,
      2,
    )}\n`,
    'Dockerfile': 'FROM node:20-alpine\n',
    'src/actor.ts':
      options.actorSource ??
      `import * as v from 'valibot';

export default {
  metadata: {
    name: 'Weather', slug: 'weather', version: '1.2.0', description: 'Forecasts', domain: 'weather', tags: ['weather'],
  },
  features: { declareReadinessProbe: true, includePanel: false, fleetMesh: false, integrationType: 'none', exposeExternalApi: true },
  settings: v.object({
    greeting: v.optional(
      v.pipe(v.string(), v.title('Greeting'), v.metadata({
        'x-platform-section': '${section}', 'x-platform-managed-by': 'user', 'x-platform-widget': 'text', 'x-platform-order': 1,
      })),
      'Hello',
    ),
  }),
  sections: [{ id: 'behaviour', title: 'Behaviour', order: 10 }],
};
`,
  });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules', 'valibot'), join(dir, 'node_modules', 'valibot'), 'dir');
  return dir;
}

/**
 * Installs a stand-in `actorkit` package in the actor's node_modules whose emitter reports the
 * options it got and whose validator reports one schema problem naming what it was given.
 */
export function installFakeActorkit(actorDir: string, sdkSource?: string): string {
  const root = join(actorDir, 'node_modules', 'actorkit');
  writeFiles(root, {
    'package.json': JSON.stringify({
      name: 'actorkit',
      version: '9.9.9',
      type: 'module',
      exports: { '.': './index.js', './sdk': './sdk.js', './package.json': './package.json' },
    }),
    'index.js': 'export const nothing = true;\n',
    'sdk.js':
      sdkSource ??
      `export async function emitPlatformConfig(dir, options) {
  return { path: dir + '/src/platform/config.json', config: { emitted_with: options }, state: 'up-to-date', written: false };
}
export function validatePlatformConfig(json) {
  return { valid: false, problems: [{ rule: 'schema', pointer: '', message: 'fake validator saw ' + JSON.stringify(json) }] };
}
`,
  });
  return root;
}
