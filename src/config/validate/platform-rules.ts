import { ruleASections } from './rules/rule-a-sections.js';
import { ruleBManagedBy } from './rules/rule-b-managed-by.js';
import { ruleCOrder } from './rules/rule-c-order.js';
import { ruleDWidget } from './rules/rule-d-widget.js';
import { ruleEShowIf } from './rules/rule-e-show-if.js';
import { ruleFConnectors } from './rules/rule-f-connectors.js';
import { ruleGExternalApi } from './rules/rule-g-external-api.js';
import { ruleHDeployment } from './rules/rule-h-deployment.js';

/**
 * The tuning rules of DESIGN §7, in the order they run and their problems are reported: the one
 * list the validator, the rule labels, the range in messages and docs/configuration.md read.
 */
export const PLATFORM_RULES = [
  ruleASections,
  ruleBManagedBy,
  ruleCOrder,
  ruleDWidget,
  ruleEShowIf,
  ruleFConnectors,
  ruleGExternalApi,
  ruleHDeployment,
] as const;

/** The letter of a registered tuning rule. */
export type RuleLetter = (typeof PLATFORM_RULES)[number]['letter'];
