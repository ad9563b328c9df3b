import type { Problem } from '../../core/problem.js';
import type { RuleLetter } from './platform-rules.js';

/** Which check found a problem: the JSON Schema, or the letter of one of the registered tuning rules. */
export type ProblemRule = 'schema' | RuleLetter;

/** One problem of a configuration: the check, the JSON pointer (RFC 6901) of the offending value, a message naming the property. */
export type ValidationProblem = Problem<ProblemRule>;

/** The outcome of `validatePlatformConfig`: every problem found, not the first only. */
export interface ValidationResult {
  readonly valid: boolean;
  readonly problems: readonly ValidationProblem[];
}
