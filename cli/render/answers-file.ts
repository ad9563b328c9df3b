import { stringify } from 'yaml';
import type { TemplateSource } from './template-source.js';

/** The name of the file `new` writes at the root of a rendered actor. */
export const ANSWERS_FILE = '.actorkit-answers.yml';

/**
 * Formats `.actorkit-answers.yml`: the template source, ref and resolved commit, the actorkit
 * version that rendered it, and the recorded answers (secrets are never passed in).
 * @param source the template rendered.
 * @param answers the answers to record.
 * @param actorkitVersion the version of the CLI that rendered.
 */
export function formatAnswersFile(source: TemplateSource, answers: Record<string, unknown>, actorkitVersion: string): string {
  const document = {
    source: source.kind,
    location: source.location,
    ref: source.ref,
    commit: source.commit,
    actorkit_version: actorkitVersion,
    answers,
  };
  return `# Written by \`actorkit new\`: the template and answers this actor was rendered from.\n${stringify(document)}`;
}
