import type { Problem } from '../../core/problem.js';

/** Which check found a problem: the JSON Schema, or one of the tuning rules A–H. */
export type ProblemRule = 'schema' | 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H';

/** One problem of a configuration: the check, the JSON pointer (RFC 6901) of the offending value, a message naming the property. */
export type ValidationProblem = Problem<ProblemRule>;

/** The outcome of `validatePlatformConfig`: every problem found, not the first only. */
export interface ValidationResult {
  readonly valid: boolean;
  readonly problems: readonly ValidationProblem[];
}

/** One tuning rule: reads a parsed configuration (possibly malformed) and returns its problems; never throws. */
export type PlatformRule = (config: unknown) => ValidationProblem[];
