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
 * `--defaults`, else a prompt in a terminal. Without a terminal nothing is asked: every question
 * still without an answer is listed in one `refused` {@link CliError}, those that need a value
 * apart from those `--defaults` would answer. A question whose `when` is false is not asked; its
 * default (or `--data` value) is still available to the templates.
 * @param questions the template's questions, in file order.
 * @param sources the answers given and how to get the rest.
 */
export async function resolveAnswers(
  questions: readonly TemplateQuestion[],
  sources: AnswerSources,
): Promise<ResolvedAnswers> {
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
  const context: Record<string, unknown> = {
    ...sources.builtins,
    actor_name: given.get('actor_name') ?? sources.actorName,
  };
  const recorded: Record<string, unknown> = { actor_name: context.actor_name };
  const unanswered = { withDefault: [] as string[], needValue: [] as MissingAnswer[], waiting: [] as string[] };
  for (const question of questions) {
    if (question.name === 'actor_name') continue;
    const blocked = unanswered.needValue.length + unanswered.waiting.length > 0;
    const applies = evaluateWhen(question, context, sources.engine, blocked);
    if (applies === undefined) {
      unanswered.waiting.push(question.name);
      continue;
    }
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
      if (fallback.usable) context[question.name] = fallback.value;
    } else if (sources.useDefaults && fallback.usable) keep(fallback.value);
    else if (sources.prompter) keep(await promptAnswer(question, fallback, sources.prompter));
    else if (fallback.usable) {
      context[question.name] = fallback.value;
      unanswered.withDefault.push(question.name);
    } else if (fallback.why === 'waiting') unanswered.waiting.push(question.name);
    else unanswered.needValue.push({ name: question.name, why: fallback.why });
  }
  if (
    unanswered.needValue.length +
      unanswered.waiting.length +
      (sources.useDefaults ? 0 : unanswered.withDefault.length) >
    0
  ) {
    throw unansweredError(unanswered, sources.useDefaults);
  }
  return { context, recorded };
}

/** A question without an answer and without a default to offer, and why. */
interface MissingAnswer {
  readonly name: string;
  /** `no default`, or why the computed default cannot be offered. */
  readonly why: string;
}

/** The one error that lists every question still without an answer when nobody can be asked. */
function unansweredError(
  unanswered: { withDefault: string[]; needValue: MissingAnswer[]; waiting: string[] },
  useDefaults: boolean,
): CliError {
  const parts: string[] = [];
  if (unanswered.needValue.length > 0) {
    parts.push(
      `${unanswered.needValue.length === 1 ? 'this question needs' : 'these questions need'} a value: ` +
        unanswered.needValue.map((missing) => `${missing.name} (${missing.why})`).join(', ') +
        `; pass ${unanswered.needValue.map((missing) => `--data ${missing.name}=VALUE`).join(' ')}`,
    );
  }
  if (unanswered.waiting.length > 0) {
    const verb = unanswered.waiting.length === 1 ? 'depends' : 'depend';
    parts.push(
      `${unanswered.waiting.join(', ')} ${verb} on ${unanswered.needValue.length === 1 ? 'that answer' : 'those answers'} and will be settled then`,
    );
  }
  if (useDefaults) return new CliError('refused', 'missing_answers', parts.join('; '));
  if (unanswered.withDefault.length > 0) {
    parts.unshift(
      `pass --defaults to accept the defaults of ${unanswered.withDefault.join(', ')} (or answer them with --data KEY=VALUE)`,
    );
  }
  return new CliError('refused', 'no_terminal', `no terminal to ask in: ${parts.join('; ')}`);
}

/** Converts every `--data` answer and the actor name at once, listing every bad one in one error. */
function convertGivenAnswers(
  sources: AnswerSources,
  byName: ReadonlyMap<string, TemplateQuestion>,
): Map<string, unknown> {
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
function evaluateWhen(
  question: TemplateQuestion,
  context: Record<string, unknown>,
  engine: TemplateEngine,
  blocked: boolean,
): boolean | undefined {
  if (question.when === undefined) return true;
  if (typeof question.when === 'boolean') return question.when;
  const source = /\{[{%]/.test(question.when) ? question.when : `{{ ${question.when} }}`;
  const rendered = renderOrUndefined(source, context, engine, `'when' of question '${question.name}'`, blocked);
  return rendered === undefined ? undefined : !FALSE_TEXT.has(rendered.trim().toLowerCase());
}

/** A default that can be offered, or why there is none to offer. */
type DefaultOffer =
  | { readonly usable: true; readonly value: unknown }
  | { readonly usable: false; readonly why: string };

/**
 * The question's default converted to its type; a nunjucks default is rendered with earlier
 * answers. A computed default that does not pass the question's checks (a name too short for
 * `domain_module`) is not offered; a literal default that does not is a template mistake.
 */
function defaultAnswer(
  question: TemplateQuestion,
  context: Record<string, unknown>,
  engine: TemplateEngine,
  blocked: boolean,
): DefaultOffer {
  if (question.default === undefined) return { usable: false, why: 'no default' };
  const label = `default of question '${question.name}'`;
  const computed = typeof question.default === 'string' && /\{[{%]/.test(question.default);
  const raw = computed
    ? renderOrUndefined(question.default as string, context, engine, label, blocked)
    : question.default;
  if (raw === undefined) return { usable: false, why: 'waiting' };
  const check = convertAnswer(question, raw);
  if (check.ok) return { usable: true, value: check.value };
  if (computed) return { usable: false, why: `the default '${String(raw)}' is not valid: ${check.reason}` };
  throw new CliError('failed', 'invalid_template', `template.yml: ${label} is not valid: ${check.reason}`);
}

/** Renders, but swallows a template error when it comes from an answer that is still missing. */
function renderOrUndefined(
  source: string,
  context: Record<string, unknown>,
  engine: TemplateEngine,
  label: string,
  blocked: boolean,
): string | undefined {
  try {
    return engine.render(source, context, `template.yml: ${label}`);
  } catch (error) {
    if (blocked) return undefined;
    throw error;
  }
}

async function promptAnswer(question: TemplateQuestion, fallback: DefaultOffer, prompter: Prompter): Promise<unknown> {
  if (question.help) prompter.say(`  ${question.help}`);
  if (!fallback.usable && fallback.why !== 'no default') prompter.say(`  (${fallback.why})`);
  const choices = question.choices ? ` (${question.choices.map((choice) => choice.label).join('/')})` : '';
  const shownDefault = !fallback.usable ? '' : question.secret ? ' [keep default]' : ` [${String(fallback.value)}]`;
  for (;;) {
    const line = await prompter.ask(`${question.name}${choices}${shownDefault}: `, { secret: question.secret });
    if (line.trim() === '' && fallback.usable) return fallback.value;
    if (line.trim() === '') {
      prompter.say('  an answer is required');
      continue;
    }
    const check = convertAnswer(question, line);
    if (check.ok) return check.value;
    prompter.say(`  ${check.reason}`);
  }
}
