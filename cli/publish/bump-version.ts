import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import inc from 'semver/functions/inc.js';
import { ACTOR_PATHS } from '../../src/sdk/index.js';
import { CliError } from '../cli-error.js';

/** The parts of a version `--bump` raises. */
const BUMP_LEVELS = ['patch', 'minor', 'major'] as const;

/** One of {@link BUMP_LEVELS}. */
type BumpLevel = (typeof BUMP_LEVELS)[number];

/** A version raise `publish --bump` plans, then writes. */
export interface VersionBump {
  readonly from: string;
  readonly to: string;
  /** The files it changes, relative to the actor folder. */
  readonly files: readonly string[];
  /** Whether `src/actor.ts` holds the version as a literal the bump raises too. */
  readonly definitionRaised: boolean;
}

const DEFINITION = ACTOR_PATHS.definition;

/**
 * Plans `--bump`: the next version after `version` and the files that hold it — `package.json`,
 * and `src/actor.ts` when its metadata carries the same version as a literal exactly once
 * (`version: '0.1.0'`, as the template writes it), since the configuration's `actor.version`
 * comes from there. Refuses (code `invalid_bump`) a level or a version semver cannot raise.
 * @param root absolute path of the actor folder
 * @param version the current `package.json` version
 * @param level `patch`, `minor` or `major`
 */
export async function planVersionBump(root: string, version: string | undefined, level: string): Promise<VersionBump> {
  if (!(BUMP_LEVELS as readonly string[]).includes(level)) {
    throw new CliError('refused', 'invalid_bump', `--bump must be one of ${BUMP_LEVELS.join(', ')}, not '${level}'`);
  }
  const to = version === undefined ? null : inc(version, level as BumpLevel);
  if (version === undefined || to === null) {
    throw new CliError(
      'refused',
      'invalid_bump',
      `cannot bump the version '${version ?? ''}' of package.json: it is not a semver version`,
    );
  }
  const source = await readFile(join(root, DEFINITION), 'utf8').catch(() => '');
  const definitionRaised = versionLiterals(source, version).length === 1;
  return {
    from: version,
    to,
    files: definitionRaised ? ['package.json', DEFINITION] : ['package.json'],
    definitionRaised,
  };
}

/**
 * Writes a planned bump: the `version` of `package.json` (keeping its indentation) and, when
 * planned, the version literal in `src/actor.ts`. The configuration is emitted afterwards.
 * @param root absolute path of the actor folder
 * @param bump from {@link planVersionBump}
 */
export async function writeVersionBump(root: string, bump: VersionBump): Promise<void> {
  const packagePath = join(root, 'package.json');
  const text = await readFile(packagePath, 'utf8');
  const indent = /^\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
  await writeFile(packagePath, `${JSON.stringify({ ...JSON.parse(text), version: bump.to }, null, indent)}\n`);
  if (!bump.definitionRaised) return;
  const definitionPath = join(root, DEFINITION);
  const source = await readFile(definitionPath, 'utf8');
  const [literal] = versionLiterals(source, bump.from);
  if (literal === undefined) return;
  await writeFile(
    definitionPath,
    source.slice(0, literal.index) +
      literal[0].replace(bump.from, bump.to) +
      source.slice(literal.index + literal[0].length),
  );
}

function versionLiterals(source: string, version: string): RegExpExecArray[] {
  const escaped = version.replace(/[.+]/g, '\\$&');
  return [...source.matchAll(new RegExp(`\\bversion:\\s*(['"])${escaped}\\1`, 'g'))];
}
