import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CliError } from '../cli-error.js';
import { ANSWER_FORMATS, formatMessage, type AnswerFormat, type AnswerValidator } from './answer-validator.js';

/** The value types a template question can ask for. */
export type QuestionType = 'str' | 'int' | 'bool' | 'choice';

/** One allowed value of a question, with the text shown for it. */
interface QuestionChoice {
  readonly label: string;
  readonly value: string | number | boolean;
}

/** One question of a template.yml, checked and normalised. */
export interface TemplateQuestion {
  readonly name: string;
  readonly type: QuestionType;
  readonly help?: string;
  /** A value, or a nunjucks string over earlier answers (`"{{ actor_name }}-client"`). */
  readonly default?: unknown;
  readonly choices?: readonly QuestionChoice[];
  readonly validator?: AnswerValidator;
  /** Ask only when this is true; a string is a nunjucks expression over earlier answers. */
  readonly when?: boolean | string;
  /** Asked without echo and never written to `.actorkit-answers.yml`. */
  readonly secret: boolean;
}

/** A template's settings and questions, read from its template.yml. */
export interface TemplateConfig {
  /** Folder of the repository that holds the files to render (`_subdirectory`), `''` for the root. */
  readonly subdirectory: string;
  readonly exclude: readonly string[];
  readonly questions: readonly TemplateQuestion[];
  /** A nunjucks text over the answers that `new` prints after rendering (`_message_after_new`). */
  readonly messageAfterNew?: string;
}

/** The name of the question file at the root of every template repository. */
export const TEMPLATE_CONFIG_FILE = 'template.yml';

const QUESTION_KEYS = new Set(['type', 'help', 'default', 'choices', 'validator', 'when', 'secret']);
const TYPES = new Set<QuestionType>(['str', 'int', 'bool', 'choice']);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads and checks `<templateDir>/template.yml`; every mistake in it is a `failed`
 * {@link CliError} with code `invalid_template` that names the question and key.
 * @param templateDir the root of the template repository or folder.
 */
export async function loadTemplateConfig(templateDir: string): Promise<TemplateConfig> {
  const file = join(templateDir, TEMPLATE_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw invalid(`no ${TEMPLATE_CONFIG_FILE} at the template root ${templateDir}`);
  }
  let document: unknown;
  try {
    document = parse(text) ?? {};
  } catch (error) {
    throw invalid(`${TEMPLATE_CONFIG_FILE} is not valid YAML: ${(error as Error).message}`);
  }
  return parseTemplateConfig(document);
}

/**
 * Checks a parsed template.yml document: `_subdirectory`, `_exclude`, then one question per
 * other key (a bare value is a question with that default).
 * @param document the YAML document as plain data.
 */
export function parseTemplateConfig(document: unknown): TemplateConfig {
  if (!isRecord(document)) throw invalid(`${TEMPLATE_CONFIG_FILE} must be a mapping of settings and questions`);
  let subdirectory = '';
  let exclude: string[] = [];
  let messageAfterNew: string | undefined;
  const questions: TemplateQuestion[] = [];
  for (const [key, value] of Object.entries(document)) {
    if (key === '_subdirectory') subdirectory = parseSubdirectory(value);
    else if (key === '_exclude') exclude = parseExclude(value);
    else if (key === '_message_after_new') messageAfterNew = parseMessage(value);
    else if (key.startsWith('_'))
      throw invalid(`unknown setting '${key}' (known: _subdirectory, _exclude, _message_after_new)`);
    else questions.push(parseQuestion(key, value));
  }
  return { subdirectory, exclude, questions, ...(messageAfterNew === undefined ? {} : { messageAfterNew }) };
}

function parseSubdirectory(value: unknown): string {
  if (typeof value !== 'string') throw invalid('_subdirectory must be a folder name');
  const folder = value.replace(/^\.\//, '').replace(/\/+$/, '');
  if (folder === '.') return '';
  if (folder.startsWith('/') || folder.split('/').includes('..')) {
    throw invalid(`_subdirectory must stay inside the template repository, got '${value}'`);
  }
  return folder;
}

function parseExclude(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw invalid('_exclude must be a list of glob strings');
  }
  return value;
}

function parseMessage(value: unknown): string {
  if (typeof value !== 'string')
    throw invalid('_message_after_new must be a text (a nunjucks template over the answers)');
  return value;
}

function parseQuestion(name: string, value: unknown): TemplateQuestion {
  if (!IDENTIFIER.test(name)) throw invalid(`question '${name}' is not a valid variable name`);
  if (name === 'actor_id') {
    throw invalid(`question 'actor_id' is not allowed: the platform assigns the actor's identity at registration`);
  }
  if (!isRecord(value)) return { name, type: inferType(value), default: value, secret: false };
  for (const key of Object.keys(value)) {
    if (!QUESTION_KEYS.has(key)) throw invalid(`question '${name}' has unknown key '${key}'`);
  }
  const type = value.type ?? (value.choices === undefined ? inferType(value.default) : 'choice');
  if (typeof type !== 'string' || !TYPES.has(type as QuestionType)) {
    throw invalid(`question '${name}' has type '${String(type)}'; use str, int, bool or choice`);
  }
  const choices = value.choices === undefined ? undefined : parseChoices(name, value.choices);
  if (type === 'choice' && choices === undefined) throw invalid(`question '${name}' is a choice without choices`);
  return {
    name,
    type: type as QuestionType,
    ...optionalString(name, 'help', value.help),
    ...(value.default === undefined || value.default === null ? {} : { default: value.default }),
    ...(choices === undefined ? {} : { choices }),
    ...(value.validator === undefined ? {} : { validator: parseValidator(name, value.validator) }),
    ...(value.when === undefined ? {} : { when: parseWhen(name, value.when) }),
    secret: parseSecret(name, value.secret),
  };
}

function inferType(value: unknown): QuestionType {
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number' && Number.isInteger(value)) return 'int';
  return 'str';
}

function parseChoices(name: string, value: unknown): QuestionChoice[] {
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item) => [String(item), item])
    : isRecord(value)
      ? Object.entries(value)
      : [];
  if (entries.length === 0) throw invalid(`question '${name}' needs a non-empty list or mapping of choices`);
  return entries.map(([label, choice]) => {
    if (typeof choice !== 'string' && typeof choice !== 'number' && typeof choice !== 'boolean') {
      throw invalid(`question '${name}' has a choice that is not a string, number or boolean`);
    }
    return { label, value: choice };
  });
}

const VALIDATOR_KEYS = new Set(['regex', 'format', 'message', 'allow_empty']);

/** Reads `validator`: a regex string, or `{regex | format, message?, allow_empty?}`. */
function parseValidator(name: string, value: unknown): AnswerValidator {
  const spec = typeof value === 'string' ? { regex: value } : value;
  const usage = `question '${name}' validator needs a 'regex' string or a 'format' (${ANSWER_FORMATS.join(', ')}), with an optional 'message' and 'allow_empty'`;
  if (!isRecord(spec) || (spec.regex === undefined) === (spec.format === undefined)) throw invalid(usage);
  const unknownKey = Object.keys(spec).find((key) => !VALIDATOR_KEYS.has(key));
  if (unknownKey !== undefined)
    throw invalid(
      `question '${name}' validator has unknown key '${unknownKey}'; ${usage.slice(usage.indexOf('needs'))}`,
    );
  if (spec.message !== undefined && typeof spec.message !== 'string')
    throw invalid(`question '${name}' validator 'message' is not a string`);
  if (spec.allow_empty !== undefined && typeof spec.allow_empty !== 'boolean')
    throw invalid(`question '${name}' validator 'allow_empty' is not a boolean`);
  const allowEmpty = spec.allow_empty === true;
  if (spec.format !== undefined) {
    if (!ANSWER_FORMATS.includes(spec.format as AnswerFormat)) {
      throw invalid(
        `question '${name}' validator format '${String(spec.format)}' is unknown; use ${ANSWER_FORMATS.join(', ')}`,
      );
    }
    const format = spec.format as AnswerFormat;
    return { kind: 'format', format, message: spec.message ?? formatMessage(format), allowEmpty };
  }
  if (typeof spec.regex !== 'string') throw invalid(usage);
  let regex: RegExp;
  try {
    regex = new RegExp(spec.regex, 'u');
  } catch (error) {
    throw invalid(`question '${name}' validator regex is invalid: ${(error as Error).message}`);
  }
  return { kind: 'regex', regex, message: spec.message ?? `must match ${spec.regex}`, allowEmpty };
}

function parseWhen(name: string, value: unknown): boolean | string {
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  throw invalid(`question '${name}' has a 'when' that is neither a boolean nor an expression`);
}

function parseSecret(name: string, value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  throw invalid(`question '${name}' has a 'secret' that is not a boolean`);
}

function optionalString(name: string, key: string, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== 'string') throw invalid(`question '${name}' has a '${key}' that is not a string`);
  return { [key]: value };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): CliError {
  return new CliError('failed', 'invalid_template', message);
}
