export { PLATFORM_SCHEMA, PLATFORM_SCHEMA_ID } from './platform-schema.js';
export { PLATFORM_RULES } from './platform-rules.js';
export { validatePlatformConfig } from './validate-platform-config.js';
export type { PlatformRule, RuleFinding } from './platform-rule.js';
export type { ProblemRule, ValidationProblem, ValidationResult } from './validation-problem.js';
