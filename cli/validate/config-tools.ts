import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Problem } from '../../src/index.js';
import { ownPackage } from '../package-root.js';
import { lendOwnPackages } from './lend-own-packages.js';

/** What `emitPlatformConfig(dir, { check })` reports, in the shape `validate` relies on. */
export interface EmitOutcome {
  readonly path: string;
  readonly config: unknown;
  readonly content?: string;
  readonly state: 'up-to-date' | 'stale' | 'missing';
  readonly written?: boolean;
  readonly difference?: { readonly line: number; readonly expected?: string; readonly actual?: string };
  /** Problems of the definition the file cannot show; absent from an older actorkit's emitter. */
  readonly problems?: readonly Problem[];
}

/** The emitter and validator `validate` runs, and which actorkit they come from. */
export interface ConfigTools {
  /** `actor`: the actor's own installed actorkit; `cli`: the one this CLI belongs to. */
  readonly origin: 'actor' | 'cli';
  readonly version: string;
  /** The root folder of that actorkit package. */
  readonly root: string;
  emitPlatformConfig(actorDir: string, options: { check: boolean }): Promise<EmitOutcome>;
  validatePlatformConfig(json: unknown): { readonly valid: boolean; readonly problems: readonly Problem[] };
}

/** The installed actorkit could not be loaded (too old, broken install). */
class ConfigToolsError extends Error {
  override readonly name = 'ConfigToolsError';
}

/**
 * Loads the configuration emitter and validator for an actor: from the actorkit installed for
 * the actor (`<actorDir>/node_modules/actorkit`, else in a `node_modules` above it) when there is
 * one, else from this CLI's own package — which then also lends the actor's code its own
 * `actorkit` and the packages it depends on (`valibot`, …) that the actor has not installed.
 * @param actorDir the actor's root folder.
 */
export async function loadConfigTools(actorDir: string): Promise<ConfigTools> {
  const manifest = installedActorkit(actorDir);
  if (manifest === undefined) return ownConfigTools(actorDir);
  const root = dirname(manifest);
  const require = createRequire(manifest);
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? 'unknown';
  for (const entry of ['actorkit/sdk', 'actorkit']) {
    let module: Partial<ConfigTools>;
    try {
      module = (await import(pathToFileURL(require.resolve(entry)).href)) as Partial<ConfigTools>;
    } catch (error) {
      throw new ConfigToolsError(`cannot load ${entry} installed at ${root}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (typeof module.emitPlatformConfig === 'function' && typeof module.validatePlatformConfig === 'function') {
      return {
        origin: 'actor',
        version,
        root,
        emitPlatformConfig: module.emitPlatformConfig,
        validatePlatformConfig: module.validatePlatformConfig,
      };
    }
  }
  throw new ConfigToolsError(
    `actorkit ${version} installed at ${root} exports no emitPlatformConfig/validatePlatformConfig; update it`,
  );
}

/** The package.json of `node_modules/actorkit` in the actor folder or the nearest folder above it. */
function installedActorkit(actorDir: string): string | undefined {
  for (let dir = resolve(actorDir); ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', 'actorkit', 'package.json');
    if (existsSync(manifest)) return manifest;
    if (dirname(dir) === dir) return undefined;
  }
}

async function ownConfigTools(actorDir: string): Promise<ConfigTools> {
  const { root, version } = ownPackage();
  await lendOwnPackages(actorDir, root);
  const { emitPlatformConfig, validatePlatformConfig } = await import('../../src/sdk/index.js');
  return { origin: 'cli', version, root, emitPlatformConfig, validatePlatformConfig };
}
