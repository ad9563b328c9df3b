import { access, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EmitError } from './emit-error.js';
import type { PlatformConfigSource } from './build-platform-config.js';

/** Where, inside an actor directory, the emitter finds the definition and writes the configuration. */
export const ACTOR_PATHS = {
  definition: 'src/actor.ts',
  packageJson: 'package.json',
  config: 'src/platform/config.json',
} as const;

/**
 * Loads what the emitter needs from an actor directory: the default export of `src/actor.ts`
 * (compiled on the fly by tsx, with the actor's nearest `tsconfig.json`) and `package.json`.
 * Throws an `EmitError` naming the file when either is missing or malformed.
 * @param actorDir the actor's root directory
 */
export async function loadActorSource(actorDir: string): Promise<PlatformConfigSource> {
  const root = resolve(actorDir);
  const packageJson = await readPackageJson(join(root, ACTOR_PATHS.packageJson));
  const definition = await importDefinition(join(root, ACTOR_PATHS.definition));
  return { definition, packageJson: packageJson as PlatformConfigSource['packageJson'] };
}

async function readPackageJson(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const missing = (error as { code?: unknown }).code === 'ENOENT';
    throw new EmitError(
      missing ? 'package_json_missing' : 'package_json_invalid',
      missing
        ? `${path} not found: the actor directory needs a package.json (its "actorkit.deployment" block feeds the configuration)`
        : `cannot read ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new EmitError('package_json_invalid', `${path} is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EmitError('package_json_invalid', `${path} must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

async function importDefinition(path: string): Promise<PlatformConfigSource['definition']> {
  if (!(await exists(path))) {
    throw new EmitError(
      'actor_module_missing',
      `${path} not found: the actor's definition must be the default export of ${ACTOR_PATHS.definition}`,
    );
  }
  let module: { default?: unknown };
  try {
    const { tsImport } = await import('tsx/esm/api');
    const tsconfig = await nearestTsconfig(dirname(path));
    module = (await tsImport(pathToFileURL(path).href, {
      parentURL: pathToFileURL(path).href,
      tsconfig: tsconfig ?? false,
    })) as {
      default?: unknown;
    };
  } catch (error) {
    throw new EmitError('actor_module_failed', `cannot load ${path}: ${(error as Error).message}`, { cause: error });
  }
  const definition = module.default;
  const missing = ['metadata', 'features', 'settings', 'sections'].filter(
    (key) => typeof definition !== 'object' || definition === null || !(key in definition),
  );
  if (missing.length > 0) {
    throw new EmitError(
      'invalid_definition',
      `${path} must export an ActorDefinition as its default export (missing: ${missing.join(', ')})`,
    );
  }
  return definition as PlatformConfigSource['definition'];
}

async function nearestTsconfig(from: string): Promise<string | undefined> {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'tsconfig.json');
    if (await exists(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
