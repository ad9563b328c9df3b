/**
 * One thing wrong at one place, as every check of actorkit reports it (the configuration's schema
 * and rules, the settings' defaults, `validate`'s own checks): the check that found it, the JSON
 * pointer (RFC 6901) of the offending value (`""` is the root), and a message naming the value.
 * The HTTP `errors` entries of a problem+json answer are the same idea in RFC 9457's words
 * (`FieldProblem`: `pointer` and `detail`, the check being the answer's `code`).
 * @example
 * const problem: Problem<'D'> = { rule: 'D', pointer: '/settings/properties/units/x-platform-widget', message: "setting 'units' uses unknown widget 'dial'" };
 */
export interface Problem<Rule extends string = string> {
  /** The check that found it: `schema`, a rule letter, `schema default`, `emitter`, … */
  readonly rule: Rule;
  readonly pointer: string;
  readonly message: string;
}
