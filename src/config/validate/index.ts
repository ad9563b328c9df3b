export { PLATFORM_SCHEMA, PLATFORM_SCHEMA_ID } from './platform-schema.js';
export { PLATFORM_RULES, validatePlatformConfig } from './validate-platform-config.js';
export type { PlatformRule, ProblemRule, ValidationProblem, ValidationResult } from './validation-problem.js';
