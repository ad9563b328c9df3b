import { PLATFORM_RULES } from './platform-rules.js';

/** The registered rules as a range of letters, the first and the last joined by an en dash, for messages that name them all. */
export const PLATFORM_RULE_RANGE: string = `${PLATFORM_RULES[0].letter}–${PLATFORM_RULES[PLATFORM_RULES.length - 1]?.letter}`;
