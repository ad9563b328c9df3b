import schema from '../../../platform-schema/v1/actor-config.schema.json' with { type: 'json' };
import { PLATFORM_RULES } from './platform-rules.js';
import { schemaProblems } from './schema-problems.js';
import type { ValidationProblem, ValidationResult } from './validation-problem.js';

/** The vendored platform schema (Draft 2020-12), loaded as a JSON module so it needs no file-system access. */
export const PLATFORM_SCHEMA: Readonly<Record<string, unknown>> = schema;

/** The versioned `$id` of the platform schema. */
export const PLATFORM_SCHEMA_ID: string = schema.$id;

/**
 * Checks a parsed `config.json` against the platform schema (Draft 2020-12, every error) and then
 * each registered tuning rule in order, returning every problem with its rule, JSON pointer and a
 * message naming the property. The rules run even when the schema fails, on whatever parts are well-formed.
 * @param json the parsed configuration
 * @example
 * const { valid, problems } = validatePlatformConfig(JSON.parse(text));
 * for (const p of problems) console.log(`- [${p.rule}] ${p.pointer}: ${p.message}`);
 */
export function validatePlatformConfig(json: unknown): ValidationResult {
  const ruleProblems = PLATFORM_RULES.flatMap((rule): ValidationProblem[] =>
    rule.check(json).map(({ pointer, message }) => ({ rule: rule.letter, pointer, message })),
  );
  const problems = [...schemaProblems(PLATFORM_SCHEMA, json), ...ruleProblems];
  return { valid: problems.length === 0, problems };
}
