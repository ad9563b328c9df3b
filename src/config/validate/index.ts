export { PLATFORM_SCHEMA, PLATFORM_SCHEMA_ID } from './platform-schema.js';
export { PLATFORM_RULES } from './platform-rules.js';
export { validatePlatformConfig } from './validate-platform-config.js';
export type { PlatformRule, RuleFinding } from './platform-rule.js';
export type { ProblemRule, ValidationProblem, ValidationResult } from './validation-problem.js';
export { PLATFORM_RULE_RANGE } from './platform-rule-range.js';
export { ruleLabel } from './rule-label.js';
export { schemaProblems } from './schema-problems.js';
export { settingFields, type SettingField } from './rules/setting-fields.js';
