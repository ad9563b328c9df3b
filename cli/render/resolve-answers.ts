import { CliError } from '../cli-error.js';
import type { Prompter } from '../prompt/line-prompter.js';
import { convertAnswer } from './answer-value.js';
import type { TemplateQuestion } from './template-config.js';
import type { TemplateEngine } from './template-engine.js';

/** Where answers come from for one `actorkit new`. */
export interface AnswerSources {
  readonly actorName: string;
  /** `--data` answers, still as text. */
  readonly data: Readonly<Record<string, string>>;
  /** `--defaults`: take every default instead of asking. */
  readonly useDefaults: boolean;
  /** Present only when a person can be asked (a terminal). */
  readonly prompter?: Prompter;
  readonly engine: TemplateEngine;
  /** Variables every template sees before the answers (e.g. `actorkit_version`). */
  readonly builtins: Readonly<Record<string, unknown>>;
}

/** The variables to render with, and the answers to record (no secrets, no skipped questions). */
export interface ResolvedAnswers {
  readonly context: Record<string, unknown>;
  readonly recorded: Record<string, unknown>;
}

/**
 * Answers every question of a template in order: `--data` first, then the default with
 * `--defaults`, else a prompt in a terminal. Without a terminal nothing is asked: all missing
 * answers are listed in one `refused` {@link CliError}. A question whose `when` is false is not
 * asked; its default (or `--data` value) is still available to the templates.
 * @param questions the template's questions, in file order.
 * @param sources the answers given and how to get the rest.
 */
export async function resolveAnswers(questions: readonly TemplateQuestion[], sources: AnswerSources): Promise<ResolvedAnswers> {
  const byName = new Map(questions.map((question) => [question.name, question]));
  const unknown = Object.keys(sources.data).filter((key) => !byName.has(key));
  if (unknown.length > 0) {
    const known = questions.map((question) => question.name).filter((name) => name !== 'actor_name');
    throw new CliError(
      'refused',
      'unknown_answer',
      `this template has no question ${unknown.map((key) => `'${key}'`).join(', ')} (its questions: ${known.join(', ') || 'none'})`,
    );
  }
  const given = convertGivenAnswers(sources, byName);
  const context: Record<string, unknown> = { ...sources.builtins, actor_name: given.get('actor_name') ?? sources.actorName };
  const recorded: Record<string, unknown> = { actor_name: context.actor_name };
  const missing: string[] = [];
  const unasked: string[] = [];
  for (const question of questions) {
    if (question.name === 'actor_name') continue;
    const blocked = missing.length + unasked.length > 0;
    const applies = evaluateWhen(question, context, sources.engine, blocked);
    if (applies === undefined) continue;
    const keep = (value: unknown) => {
      context[question.name] = value;
      if (applies && !question.secret) recorded[question.name] = value;
    };
    if (given.has(question.name)) {
      keep(given.get(question.name));
      continue;
    }
    const fallback = defaultAnswer(question, context, sources.engine, blocked);
    if (!applies) {
      if (fallback !== undefined) context[question.name] = fallback;
    } else if (sources.useDefaults && fallback !== undefined) keep(fallback);
    else if (sources.prompter) keep(await promptAnswer(question, fallback, sources.prompter));
    else if (fallback === undefined) missing.push(question.name);
    else unasked.push(question.name);
  }
  if (missing.length > 0 && sources.useDefaults) {
    throw new CliError(
      'refused',
      'missing_answers',
      `missing required answers (no default in template.yml): ${missing.join(', ')}; ` +
        `pass them with ${missing.map((name) => `--data ${name}=VALUE`).join(' ')}`,
    );
  }
  if (missing.length + unasked.length > 0) {
    throw new CliError(
      'refused',
      'no_terminal',
      `no terminal to ask in, and these questions have no answer: ${[...missing, ...unasked].join(', ')}; ` +
        'pass --defaults to accept the template defaults and --data KEY=VALUE for the rest' +
        (missing.length > 0 ? ` (no default: ${missing.join(', ')})` : ''),
    );
  }
  return { context, recorded };
}

/** Converts every `--data` answer and the actor name at once, listing every bad one in one error. */
function convertGivenAnswers(sources: AnswerSources, byName: ReadonlyMap<string, TemplateQuestion>): Map<string, unknown> {
  const converted = new Map<string, unknown>();
  const problems: string[] = [];
  const raw: [string, string][] = [...Object.entries(sources.data)];
  if (byName.has('actor_name')) raw.unshift(['actor_name', sources.actorName]);
  else if (sources.actorName.trim() === '') problems.push('actor_name: must not be empty');
  for (const [name, text] of raw) {
    const check = convertAnswer(byName.get(name) as TemplateQuestion, text);
    if (check.ok) converted.set(name, check.value);
    else problems.push(`${name}: ${check.reason}`);
  }
  if (problems.length > 0) throw new CliError('refused', 'invalid_answer', `invalid answers: ${problems.join('; ')}`);
  return converted;
}

const FALSE_TEXT = new Set(['', 'false', '0', 'no', 'none', 'null', 'undefined']);

/** Whether a question applies; `undefined` when it cannot be known because an earlier answer is missing. */
function evaluateWhen(question: TemplateQuestion, context: Record<string, unknown>, engine: TemplateEngine, blocked: boolean): boolean | undefined {
  if (question.when === undefined) return true;
  if (typeof question.when === 'boolean') return question.when;
  const source = /\{[{%]/.test(question.when) ? question.when : `{{ ${question.when} }}`;
  const rendered = renderOrUndefined(source, context, engine, `'when' of question '${question.name}'`, blocked);
  return rendered === undefined ? undefined : !FALSE_TEXT.has(rendered.trim().toLowerCase());
}

/** The question's default converted to its type; a nunjucks default is rendered with earlier answers. */
function defaultAnswer(question: TemplateQuestion, context: Record<string, unknown>, engine: TemplateEngine, blocked: boolean): unknown {
  if (question.default === undefined) return undefined;
  const label = `default of question '${question.name}'`;
  const raw =
    typeof question.default === 'string' && /\{[{%]/.test(question.default)
      ? renderOrUndefined(question.default, context, engine, label, blocked)
      : question.default;
  if (raw === undefined) return undefined;
  const check = convertAnswer(question, raw);
  if (!check.ok) throw new CliError('failed', 'invalid_template', `template.yml: ${label} is not valid: ${check.reason}`);
  return check.value;
}

/** Renders, but swallows a template error when it comes from an answer that is still missing. */
function renderOrUndefined(source: string, context: Record<string, unknown>, engine: TemplateEngine, label: string, blocked: boolean): string | undefined {
  try {
    return engine.render(source, context, `template.yml: ${label}`);
  } catch (error) {
    if (blocked) return undefined;
    throw error;
  }
}

async function promptAnswer(question: TemplateQuestion, fallback: unknown, prompter: Prompter): Promise<unknown> {
  if (question.help) prompter.say(`  ${question.help}`);
  const choices = question.choices ? ` (${question.choices.map((choice) => choice.label).join('/')})` : '';
  const shownDefault = fallback === undefined ? '' : question.secret ? ' [keep default]' : ` [${String(fallback)}]`;
  for (;;) {
    const line = await prompter.ask(`${question.name}${choices}${shownDefault}: `, { secret: question.secret });
    if (line.trim() === '' && fallback !== undefined) return fallback;
    if (line.trim() === '') {
      prompter.say('  an answer is required');
      continue;
    }
    const check = convertAnswer(question, line);
    if (check.ok) return check.value;
    prompter.say(`  ${check.reason}`);
  }
}
