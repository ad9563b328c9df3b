import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { CliError } from '../cli-error.js';
import type { TemplateSource, TemplateSourceKind } from './template-source.js';

/** The name of the file `new` writes at the root of a rendered actor. */
export const ANSWERS_FILE = '.actorkit-answers.yml';

/**
 * What `.actorkit-answers.yml` records: enough to render the same template again exactly —
 * the source, the ref and the commit it resolved to, the CLI version and the variables the CLI
 * added (`actorkit_dependency`), and the answers (no secrets).
 */
export interface AnswersRecord {
  readonly source: TemplateSourceKind;
  readonly location: string;
  readonly ref: string | null;
  readonly commit: string | null;
  readonly actorkit_version: string;
  /** The built-in variables the render saw besides `actorkit_version`; absent in files written before `update` existed. */
  readonly rendered_with?: { readonly actorkit_dependency?: string };
  readonly answers: Record<string, unknown>;
}

/**
 * Formats `.actorkit-answers.yml`: the template source, ref and resolved commit, the actorkit
 * version and built-in variables that rendered it, and the recorded answers (secrets are never
 * passed in).
 * @param source the template rendered.
 * @param answers the answers to record.
 * @param context the variables the render saw (its `actorkit_version` and `actorkit_dependency` are kept).
 */
export function formatAnswersFile(
  source: Pick<TemplateSource, 'kind' | 'location' | 'ref' | 'commit'>,
  answers: Record<string, unknown>,
  context: Record<string, unknown>,
): string {
  const document: AnswersRecord = {
    source: source.kind,
    location: source.location,
    ref: source.ref,
    commit: source.commit,
    actorkit_version: String(context.actorkit_version),
    rendered_with: { actorkit_dependency: String(context.actorkit_dependency) },
    answers,
  };
  return `# Written by \`actorkit new\` and \`actorkit update\`: the template and answers this actor was rendered from.\n${stringify(document)}`;
}

/**
 * Reads and checks an actor's `.actorkit-answers.yml`; a missing or malformed file is a `refused`
 * {@link CliError} (`no_answers_file`, `invalid_answers_file`).
 * @param actorDir the actor folder.
 */
export async function readAnswersFile(actorDir: string): Promise<AnswersRecord> {
  const path = join(actorDir, ANSWERS_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new CliError(
      'refused',
      'no_answers_file',
      `${path} does not exist: only an actor rendered by \`actorkit new\` can be updated`,
    );
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw invalid(path, `not valid YAML: ${(error as Error).message}`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw invalid(path, 'not a mapping');
  const record = document as Record<string, unknown>;
  if (!['local', 'repository', 'bundled'].includes(record.source as string))
    throw invalid(path, "'source' must be local, repository or bundled");
  if (typeof record.location !== 'string' || record.location === '')
    throw invalid(path, "'location' must be a path or URL");
  for (const key of ['ref', 'commit'] as const) {
    if (record[key] !== null && record[key] !== undefined && typeof record[key] !== 'string')
      throw invalid(path, `'${key}' must be text`);
  }
  if (typeof record.answers !== 'object' || record.answers === null || Array.isArray(record.answers))
    throw invalid(path, "'answers' must be a mapping");
  const renderedWith = record.rendered_with as AnswersRecord['rendered_with'] | undefined;
  return {
    source: record.source as TemplateSourceKind,
    location: record.location,
    ref: (record.ref as string | undefined) ?? null,
    commit: (record.commit as string | undefined) ?? null,
    actorkit_version: String(record.actorkit_version ?? ''),
    ...(typeof renderedWith?.actorkit_dependency === 'string'
      ? { rendered_with: { actorkit_dependency: renderedWith.actorkit_dependency } }
      : {}),
    answers: record.answers as Record<string, unknown>,
  };
}

function invalid(path: string, why: string): CliError {
  return new CliError(
    'refused',
    'invalid_answers_file',
    `${path} is ${why.startsWith('not') ? why : `invalid: ${why}`}`,
  );
}
