import { PLATFORM_RULES } from './platform-rules.js';

/**
 * The label of a problem's rule in a bullet: a registered rule's letter and name (`C order`), any
 * other rule as it is (`schema`, `schema default`, `emitter`).
 * @param rule the problem's `rule`.
 */
export function ruleLabel(rule: string): string {
  const registered = PLATFORM_RULES.find((candidate) => candidate.letter === rule);
  return registered === undefined ? rule : `${registered.letter} ${registered.name}`;
}
