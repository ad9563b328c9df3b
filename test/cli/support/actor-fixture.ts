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
    Dockerfile: 'FROM node:20-alpine\n',
    'src/actor.ts':
      options.actorSource ??
      actorWithSettings(`{
    greeting: v.optional(
      v.pipe(v.string(), v.title('Greeting'), v.metadata({ ...field(1), 'x-platform-section': '${section}', 'x-platform-widget': 'text' })),
      'Hello',
    ),
  }`),
  });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(REPOSITORY_ROOT, 'node_modules', 'valibot'), join(dir, 'node_modules', 'valibot'), 'dir');
  return dir;
}

/**
 * Writes the small actor of {@link writeActorFixture} with this checkout installed as its
 * actorkit (a link stands in for `npm install`); returns the path of its `src/platform/config.json`.
 */
export function writeInstalledActorFixture(dir: string): string {
  writeActorFixture(dir);
  symlinkSync(REPOSITORY_ROOT, join(dir, 'node_modules', 'actorkit'), 'dir');
  return join(dir, 'src', 'platform', 'config.json');
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

/**
 * The source of a small actor's `src/actor.ts` whose settings are the given `v.object` entries.
 * The module imports valibot as `v` and defines `field(order)`, the metadata of a user-managed
 * field of the `behaviour` section.
 * @param settingsEntries the object literal passed to `v.object`.
 * @param imports extra import lines.
 */
export function actorWithSettings(settingsEntries: string, imports = ''): string {
  return `import * as v from 'valibot';
${imports}
const field = (order: number) => ({ 'x-platform-section': 'behaviour', 'x-platform-managed-by': 'user', 'x-platform-order': order });

export default {
  metadata: {
    name: 'Weather', slug: 'weather', version: '1.2.0', description: 'Forecasts', domain: 'weather', tags: ['weather'],
  },
  features: { declareReadinessProbe: true, includePanel: false, fleetMesh: false, integrationType: 'none', exposeExternalApi: true },
  settings: v.object(${settingsEntries}),
  sections: [{ id: 'behaviour', title: 'Behaviour', order: 10 }],
};
`;
}

/** Ways an actor's `src/actor.ts` can fail to load; each but the missing ones marks its failing line `FAILS HERE`. */
export type BrokenActorKind =
  | 'widget-typo'
  | 'platform-field-misuse'
  | 'reference-error'
  | 'syntax-error'
  | 'missing-export'
  | 'missing-package'
  | 'missing-file';

const SDK_IMPORT = `import { platformField } from '${join(REPOSITORY_ROOT, 'src', 'sdk', 'index.ts')}';`;

/**
 * The source of an actor whose `src/actor.ts` fails to load in the given way. The SDK is
 * imported from this checkout's source by absolute path, so no actorkit is installed for it.
 */
export function brokenActorSource(kind: BrokenActorKind): string {
  const greeting = (schema: string) => `{\n    greeting: v.optional(${schema}, 'Hello'), // FAILS HERE\n  }`;
  switch (kind) {
    case 'widget-typo':
      return actorWithSettings(
        greeting(`v.pipe(v.string(), platformField('behaviour', { widget: 'slect' as 'select', order: 1 }))`),
        SDK_IMPORT,
      );
    case 'platform-field-misuse':
      return actorWithSettings(
        greeting(`v.pipe(v.string(), platformField('behaviour', { fedByConnector: 'crm', creatorValue: 'Hi' }))`),
        SDK_IMPORT,
      );
    case 'reference-error':
      return actorWithSettings(
        `{\n    greeting: v.optional(v.string(), greetingDefault), // FAILS HERE\n  }`,
        'declare const greetingDefault: string;',
      );
    case 'syntax-error':
      return actorWithSettings(greeting(`v.pipe(v.string(), v.minLength(1 +))`));
    case 'missing-export':
      return actorWithSettings(greeting('strng()'), "import { strng } from 'valibot'; // FAILS HERE");
    case 'missing-package':
      return actorWithSettings(greeting('v.picklist(codes)'), "import { codes } from 'weather-codes';");
    case 'missing-file':
      return actorWithSettings(greeting('v.picklist(forecasts)'), "import { forecasts } from './forecast.js';");
  }
}
