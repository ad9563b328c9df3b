/** One problem a tuning rule finds: the JSON pointer (RFC 6901) of the offending value and a message naming the property. */
export interface RuleFinding {
  readonly pointer: string;
  readonly message: string;
}

/**
 * One tuning rule of the platform configuration (DESIGN §7): its letter, its short name, what it
 * checks and where it points (the Markdown of its row in docs/configuration.md), and the check.
 */
export interface PlatformRule<Letter extends string = string> {
  /** The rule's letter, the next one after the rule before it in `PLATFORM_RULES`. */
  readonly letter: Letter;
  /** The short kebab-case name shown beside the letter in a problem bullet: `- [C order] …`. */
  readonly name: string;
  /** What the rule checks, one Markdown table cell. */
  readonly checks: string;
  /** The pointers its problems carry, one Markdown table cell. */
  readonly pointers: string;
  /** Reads a parsed configuration (possibly malformed) and returns its findings in order; never throws. */
  readonly check: (config: unknown) => RuleFinding[];
}

/**
 * Declares one tuning rule, keeping its letter as a literal type so the rule letters of
 * `ValidationProblem` are read from the registry.
 * @param rule the rule's letter, name, documentation and check.
 * @example
 * export const ruleBManagedBy = definePlatformRule({ letter: 'B', name: 'managed-by', checks: '…', pointers: '…', check: (config) => [] });
 */
export function definePlatformRule<Letter extends string>(rule: PlatformRule<Letter>): PlatformRule<Letter> {
  return Object.freeze({ ...rule });
}
