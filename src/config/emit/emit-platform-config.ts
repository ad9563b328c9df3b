import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ActorDefinition } from '../../core/actor-definition.js';
import type { PlatformConfig } from '../platform-config.js';
import { sectionIdProblems } from '../sections/section-id-problems.js';
import { TEMPLATE_SECTIONS } from '../sections/template-sections.js';
import { secretSettingKeys, settingsJsonSchema } from '../settings-json-schema.js';
import { ruleASections } from '../validate/rules/rule-a-sections.js';
import { ruleHDeployment } from '../validate/rules/rule-h-deployment.js';
import type { ValidationProblem } from '../validate/validation-problem.js';
import { buildPlatformConfig } from './build-platform-config.js';
import { ACTOR_PATHS, loadActorSource } from './load-actor-source.js';

/** Options of `emitPlatformConfig`. */
export interface EmitOptions {
  /** Render in memory and compare with the file on disk; write nothing. */
  readonly check?: boolean;
}

/** The first line where the file on disk and the fresh rendering differ (1-based). */
export interface ConfigDifference {
  readonly line: number;
  readonly expected: string | undefined;
  readonly actual: string | undefined;
}

/** What `emitPlatformConfig` did, or in check mode found. */
export interface EmitResult {
  /** Absolute path of `src/platform/config.json`. */
  readonly path: string;
  readonly config: PlatformConfig;
  /** The rendered file content. */
  readonly content: string;
  /** The file before this run: equal to the rendering, different from it, or absent. */
  readonly state: 'up-to-date' | 'stale' | 'missing';
  /** Whether the file was (re)written; never in check mode, nor when it was up to date. */
  readonly written: boolean;
  readonly difference?: ConfigDifference;
  /** Problems of the definition the emitted file cannot show (a secret's default, a dropped section); see `definitionProblems`. */
  readonly problems: readonly ValidationProblem[];
}

/**
 * Serialises a configuration the one way the project writes it: two-space indent, keys in the
 * order the emitter built them, and a trailing newline.
 * @param config the configuration, as `buildPlatformConfig` returns it
 */
export function serializePlatformConfig(config: PlatformConfig): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * Renders the canonical configuration of the actor in `actorDir` (definition from
 * `src/actor.ts`, deployment from `package.json`) and writes `src/platform/config.json`, or,
 * with `check`, only reports whether that file is stale or missing. Loading failures throw an
 * `EmitError`; a stale file in check mode is a result, not an error.
 * @param actorDir the actor's root directory
 * @param options `check: true` for `emit --check`
 * @example
 * const { state } = await emitPlatformConfig('examples/hello-actor', { check: true });
 * if (state !== 'up-to-date') process.exitCode = 1;
 */
export async function emitPlatformConfig(actorDir: string, options: EmitOptions = {}): Promise<EmitResult> {
  const root = resolve(actorDir);
  const source = await loadActorSource(root);
  const config = buildPlatformConfig(source);
  const content = serializePlatformConfig(config);
  const path = join(root, ACTOR_PATHS.config);
  const previous = await readFile(path, 'utf8').catch(() => undefined);
  const state = previous === undefined ? 'missing' : previous === content ? 'up-to-date' : 'stale';
  const difference = state === 'stale' ? firstDifference(content, previous ?? '') : undefined;
  const written = options.check !== true && state !== 'up-to-date';
  if (written) {
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, content, 'utf8');
    await rename(temporary, path);
  }
  const problems = definitionProblems(source.definition);
  return { path, config, content, state, written, problems, ...(difference === undefined ? {} : { difference }) };
}

function firstDifference(expected: string, actual: string): ConfigDifference {
  const want = expected.split('\n');
  const have = actual.split('\n');
  let index = 0;
  while (index < want.length && want[index] === have[index]) index += 1;
  return { line: index + 1, expected: want[index], actual: have[index] };
}

/**
 * The problems of an actor's definition that the emitted configuration cannot show, because
 * emitting hides them: a secret setting with a default in the code (rule H; the emitter drops
 * the default, yet the actor would use it and ship it in its image), and an actor section whose
 * id repeats one the template or the actor already declares (rule A; `mergeSections` drops it).
 * Pointers are those of the configuration: `/settings/properties/<key>/default`, and
 * `/sections/<i>` where the dropped section would have been.
 */
function definitionProblems(definition: Pick<ActorDefinition, 'settings' | 'sections'>): ValidationProblem[] {
  const entries = definition.settings.entries as Record<string, { default?: unknown }>;
  const secretDefaults = secretSettingKeys(settingsJsonSchema(definition.settings))
    .filter((key) => entries[key]?.default !== undefined)
    .map((key) => ({
      rule: ruleHDeployment.letter,
      pointer: `/settings/properties/${key}/default`,
      message: `secret setting '${key}' has a default in the code: the actor would use it and ship it in its image; remove the default and set the secret at deployment`,
    }));
  const sections = sectionIdProblems(definition.sections).map(({ index, message }) => ({
    rule: ruleASections.letter,
    pointer: `/sections/${TEMPLATE_SECTIONS.length + index}`,
    message,
  }));
  return [...sections, ...secretDefaults];
}
