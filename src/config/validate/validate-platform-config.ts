import { PLATFORM_SCHEMA } from './platform-schema.js';
import { ruleASections } from './rules/rule-a-sections.js';
import { ruleBManagedBy } from './rules/rule-b-managed-by.js';
import { ruleCOrder } from './rules/rule-c-order.js';
import { ruleDWidget } from './rules/rule-d-widget.js';
import { ruleEShowIf } from './rules/rule-e-show-if.js';
import { ruleFConnectors } from './rules/rule-f-connectors.js';
import { ruleGExternalApi } from './rules/rule-g-external-api.js';
import { ruleHDeployment } from './rules/rule-h-deployment.js';
import { schemaProblems } from './schema-problems.js';
import type { PlatformRule, ValidationResult } from './validation-problem.js';

/** The tuning rules A–H of DESIGN §7, in order. */
export const PLATFORM_RULES: readonly PlatformRule[] = [
  ruleASections,
  ruleBManagedBy,
  ruleCOrder,
  ruleDWidget,
  ruleEShowIf,
  ruleFConnectors,
  ruleGExternalApi,
  ruleHDeployment,
];

/**
 * Checks a parsed `config.json` against the platform schema (Draft 2020-12, every error) and then
 * the tuning rules A–H, returning every problem with its rule, JSON pointer and a message naming
 * the property. The rules run even when the schema fails, on whatever parts are well-formed.
 * @param json the parsed configuration
 * @example
 * const { valid, problems } = validatePlatformConfig(JSON.parse(text));
 * for (const p of problems) console.log(`- [${p.rule}] ${p.pointer}: ${p.message}`);
 */
export function validatePlatformConfig(json: unknown): ValidationResult {
  const problems = [...schemaProblems(PLATFORM_SCHEMA, json), ...PLATFORM_RULES.flatMap((rule) => rule(json))];
  return { valid: problems.length === 0, problems };
}
