import type { Problem } from '../../src/index.js';
import { ruleLabel } from '../../src/sdk/index.js';

/** One problem `validate` reports: the check (`schema`, a tuning rule's letter, `schema default` or `emitter`), a JSON pointer, a message, and where to look. */
export interface ActorProblem extends Problem {
  /** What to do about it, when the CLI knows. */
  readonly hint?: string;
  /** Where in the actor's code the problem is, relative to the actor folder (`src/actor.ts:12:5`). */
  readonly location?: string;
  /** Set on a problem found only in the file on disk (`src/platform/config.json`), not in what the code emits. */
  readonly in?: string;
}

/**
 * Formats one validation problem as the bullet `- [rule name] /pointer: message (in file) (hint)`,
 * e.g. `- [C order] /settings/…: …`; `(in file)` marks a problem only the file on disk has.
 */
export function problemBullet(problem: {
  rule: string;
  pointer: string;
  message: string;
  hint?: string;
  in?: string;
}): string {
  const where = problem.in ? ` (in ${problem.in})` : '';
  const hint = problem.hint ? ` (hint: ${problem.hint})` : '';
  return `- [${ruleLabel(problem.rule)}] ${problem.pointer || '/'}: ${problem.message}${where}${hint}`;
}
