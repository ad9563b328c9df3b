import type * as v from 'valibot';
import { ActorError, type FieldProblem } from './actor-error.js';
import { jsonPointer } from './json-pointer.js';

/** The JSON pointer (RFC 6901) of a valibot issue, e.g. `/attachments/0/url`. */
function issuePointer(issue: v.BaseIssue<unknown>): string {
  return jsonPointer(...(issue.path ?? []).map((item) => String(item.key)));
}

function issueDetail(issue: v.BaseIssue<unknown>): string {
  if (issue.type === 'strict_object' && issue.expected === 'never') return 'is not a known field';
  if (issue.input === undefined && issue.kind === 'schema') return 'is required';
  return issue.message;
}

/** Turns valibot issues into one field problem per bad field (first issue of each field wins). */
export function fieldProblems(issues: readonly v.BaseIssue<unknown>[]): FieldProblem[] {
  const byPointer = new Map<string, FieldProblem>();
  for (const issue of issues) {
    const pointer = issuePointer(issue);
    if (!byPointer.has(pointer)) byPointer.set(pointer, { pointer, detail: issueDetail(issue) });
  }
  return [...byPointer.values()];
}

/** Says how many fields of `what` are invalid, e.g. `The request body has 2 invalid fields`. */
export function invalidFieldCount(what: string, count: number): string {
  return `${what} has ${count} invalid field${count === 1 ? '' : 's'}`;
}

/**
 * The 422 `validation_failed` error: the one builder of that problem.
 * @param errors one entry per bad field
 * @param detail what was wrong, as a whole; by default the count of bad fields of the request body
 */
export function validationFailed(
  errors: readonly FieldProblem[],
  detail = invalidFieldCount('The request body', errors.length),
): ActorError {
  return new ActorError('validation_failed', { detail, errors });
}

/** The 422 `validation_failed` error for a list of valibot issues. */
export function validationError(issues: readonly v.BaseIssue<unknown>[], what = 'The request body'): ActorError {
  const errors = fieldProblems(issues);
  return validationFailed(errors, invalidFieldCount(what, errors.length));
}
