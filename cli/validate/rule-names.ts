/**
 * The short name of each tuning rule of `validatePlatformConfig` (DESIGN §7, docs/configuration.md),
 * shown beside its letter in a problem bullet: `- [C order] /settings/…: …`.
 */
export const RULE_NAMES: Readonly<Record<string, string>> = {
  A: 'sections',
  B: 'managed-by',
  C: 'order',
  D: 'widget',
  E: 'show-if',
  F: 'connector',
  G: 'external-api',
  H: 'deployment',
};

/**
 * The label of a problem's rule in a bullet: the letter and its name for the rules A–H
 * (`C order`), the rule itself otherwise (`schema`, `schema default`, `emitter`).
 * @param rule the problem's `rule`.
 */
export function ruleLabel(rule: string): string {
  const name = Object.hasOwn(RULE_NAMES, rule) ? RULE_NAMES[rule] : undefined;
  return name === undefined ? rule : `${rule} ${name}`;
}
