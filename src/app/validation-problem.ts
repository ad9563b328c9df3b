import type * as v from 'valibot';
import { jsonPointer } from '../config/validate/json-pointer.js';
import { ActorError, type FieldProblem } from './actor-error.js';

/** The JSON pointer (RFC 6901) of a valibot issue, e.g. `/attachments/0/url`. */
export function issuePointer(issue: v.BaseIssue<unknown>): string {
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

/** The 422 `validation_failed` error for a list of valibot issues. */
export function validationError(issues: readonly v.BaseIssue<unknown>[], what = 'The request body'): ActorError {
  const errors = fieldProblems(issues);
  return new ActorError(422, 'validation_failed', 'Validation failed', {
    detail: `${what} has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}`,
    errors,
  });
}
