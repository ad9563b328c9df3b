import * as v from 'valibot';
import { jsonPointer } from '../core/json-pointer.js';
import { secretSettingKeys, settingsJsonSchema, type JsonSchemaDocument } from '../config/settings-json-schema.js';
import type { ActorDefinition } from '../core/actor-definition.js';
import { ActorError } from '../core/actor-error.js';
import type { ActorEnvironment } from '../environment/runtime-config.js';
import type { FieldProblem } from '../core/actor-error.js';
import { fieldProblems, invalidFieldCount, validationFailed } from '../core/validation-problem.js';
import { parseOnOff } from '../environment/parse-on-off.js';
import { StartupRefusal } from '../environment/startup-refusal.js';

/** What `PUT /settings` answers. */
export interface SettingsUpdateResult {
  readonly settings: Record<string, unknown>;
  readonly applied: string[];
  readonly restart_required: string[];
}

/** The mask shown instead of a secret value that is set. */
export const SECRET_MASK = '********';

/** The setting a valibot issue is about: the first key of its path, '' for the whole object. */
function settingKeyOf(issue: v.BaseIssue<unknown>): string {
  return v.getDotPath(issue)?.split('.')[0] ?? '';
}

/**
 * What is wrong with a secret setting, without the value received: valibot's own messages
 * quote it (`Invalid format: Expected /^sk-/ but received "sk-live-…"`).
 */
function secretIssueDetail(issue: v.BaseIssue<unknown>): string {
  return `is not valid (${issue.kind === 'schema' ? `expected ${issue.expected ?? issue.type}` : issue.type}; the secret value is not shown)`;
}

function coerceEnvValue(raw: string, property: Record<string, unknown> | undefined): unknown {
  const type = property?.type;
  if (type === 'integer' || type === 'number') return raw.trim() === '' ? raw : Number(raw);
  if (type === 'boolean') return parseOnOff(raw) ?? raw;
  if (type === 'array' || type === 'object') {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/**
 * Field problems an update would cause beyond the settings schema, judged on the whole saved
 * configuration (`values`): the agent's own reading of its knobs, for example.
 */
export type SettingsCheck = (values: Readonly<Record<string, unknown>>) => readonly FieldProblem[];

/** Options of `ActorSettings`. */
export interface ActorSettingsOptions {
  /** Checks a saved configuration before it is stored (see `SettingsCheck`); a problem refuses the update with 422. */
  readonly check?: SettingsCheck;
}

/**
 * The settings of an actor: defaults from the schema, then environment variables (the
 * upper-case key, e.g. `llm_model` ← `LLM_MODEL`), then overrides saved by `PUT /settings`.
 * The live values (`values`) take a saved override at once, except a key the definition lists
 * in `restartRequired`: its new value is saved and becomes live at the next start.
 */
export class ActorSettings {
  readonly jsonSchema: JsonSchemaDocument;
  readonly secretKeys: ReadonlySet<string>;
  readonly #schema: ActorDefinition['settings'];
  readonly #restartRequired: ReadonlySet<string>;
  readonly #base: Record<string, unknown>;
  readonly #check: SettingsCheck;
  #overrides: Record<string, unknown> = {};
  /** What the actor runs with now: the stored overrides, but restart-required keys as they were at the start. */
  #current: Record<string, unknown>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(definition: Pick<ActorDefinition, 'settings' | 'restartRequired'>, env: ActorEnvironment, options: ActorSettingsOptions = {}) {
    this.#schema = definition.settings;
    this.#restartRequired = new Set(definition.restartRequired ?? []);
    this.#check = options.check ?? (() => []);
    this.jsonSchema = settingsJsonSchema(definition.settings);
    this.secretKeys = new Set(secretSettingKeys(this.jsonSchema));
    const fromEnv: Record<string, unknown> = {};
    for (const key of Object.keys(definition.settings.entries)) {
      const raw = env[key.toUpperCase()];
      if (raw !== undefined) fromEnv[key] = coerceEnvValue(raw, this.jsonSchema.properties?.[key]);
    }
    this.#base = fromEnv;
    const result = v.safeParse(this.#schema, fromEnv);
    if (!result.success) {
      const problems = this.#withSecretsMasked(result.issues).map((issue) => {
        const key = settingKeyOf(issue);
        return `setting ${key || '(root)'} from ${this.sourceOf(key)} ${issue.message}`;
      });
      throw new StartupRefusal(settingKeyOf(result.issues[0]!) || 'settings', `Invalid settings: ${problems.join('; ')}`);
    }
    this.#current = result.output as Record<string, unknown>;
  }

  /** The issues, each about a secret setting with its message replaced by `secretIssueDetail`. */
  #withSecretsMasked(issues: readonly v.BaseIssue<unknown>[]): v.BaseIssue<unknown>[] {
    return issues.map((issue) => (this.secretKeys.has(settingKeyOf(issue)) ? { ...issue, message: secretIssueDetail(issue), received: SECRET_MASK } : issue));
  }

  /**
   * Where the current value of setting `key` came from, for messages: the upper-cased
   * environment variable, `PUT /settings`, or the schema's default in `src/actor.ts`.
   */
  sourceOf(key: string): string {
    if (Object.hasOwn(this.#overrides, key)) return 'a value saved by PUT /settings';
    if (Object.hasOwn(this.#base, key)) return `the environment variable ${key.toUpperCase()}`;
    return 'the settings default in src/actor.ts';
  }

  /** The current values, secrets included: for the actor's own code only. */
  get values(): Readonly<Record<string, unknown>> {
    return this.#current;
  }

  /** `values` (the live ones unless told otherwise) with every secret replaced by a mask (or null when unset). */
  redacted(values: Readonly<Record<string, unknown>> = this.#current): Record<string, unknown> {
    const shown: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(values)) {
      shown[key] = this.secretKeys.has(key) ? (value === undefined || value === null || value === '' ? null : SECRET_MASK) : value;
    }
    return shown;
  }

  /** Applies overrides loaded from the store at start; invalid saved values are dropped and reported. */
  applySavedOverrides(saved: Record<string, unknown>): string[] {
    const dropped: string[] = [];
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(saved)) {
      if (!Object.hasOwn(this.#schema.entries, key)) {
        dropped.push(key);
        continue;
      }
      kept[key] = value;
    }
    const result = v.safeParse(this.#schema, { ...this.#base, ...kept });
    if (!result.success) return [...dropped, ...Object.keys(kept)];
    this.#overrides = kept;
    this.#current = result.output as Record<string, unknown>;
    return dropped;
  }

  /**
   * Validates a partial update (the settings schema, then the `check` of the options), persists
   * it through `save` and applies it — all or nothing; a restart-required key is saved, reported
   * under `restart_required` and left at its live value until the next start. The answer's
   * `settings` are the saved ones (secrets masked). Concurrent updates run one after another, so
   * the stored overrides always form a valid whole.
   */
  update(body: unknown, save: (overrides: Record<string, unknown>) => Promise<void>): Promise<SettingsUpdateResult> {
    const run = this.#queue.then(() => this.#update(body, save));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #update(body: unknown, save: (overrides: Record<string, unknown>) => Promise<void>): Promise<SettingsUpdateResult> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw validationFailed([{ pointer: '', detail: 'must be an object' }], 'The body must be a JSON object of settings');
    }
    const changes = body as Record<string, unknown>;
    // Every bad field of the body in one answer: the unknown keys, then the known ones' issues.
    const problems: FieldProblem[] = Object.keys(changes)
      .filter((key) => !Object.hasOwn(this.#schema.entries, key))
      .map((key) => ({ pointer: jsonPointer(key), detail: 'is not a known setting' }));
    const overrides = Object.fromEntries(Object.entries({ ...this.#overrides, ...changes }).filter(([key]) => Object.hasOwn(this.#schema.entries, key)));
    const result = v.safeParse(this.#schema, { ...this.#base, ...overrides });
    if (!result.success) problems.push(...fieldProblems(this.#withSecretsMasked(result.issues)));
    else if (problems.length === 0) problems.push(...this.#check(result.output as Record<string, unknown>));
    if (!result.success || problems.length > 0) throw validationFailed(problems, invalidFieldCount('The settings body', problems.length));
    try {
      await save(overrides);
    } catch (error) {
      throw new ActorError('store_unavailable', { detail: 'Settings could not be saved: the database is unreachable; nothing was changed', cause: error });
    }
    const previous = this.#current;
    const saved = result.output as Record<string, unknown>;
    const live = { ...saved };
    for (const key of this.#restartRequired) {
      if (Object.hasOwn(previous, key)) live[key] = previous[key];
      else delete live[key];
    }
    this.#overrides = overrides;
    this.#current = live;
    const differs = (key: string, from: Readonly<Record<string, unknown>>) => JSON.stringify(from[key]) !== JSON.stringify(saved[key]);
    const sent = Object.keys(changes);
    return {
      settings: this.redacted(saved),
      applied: sent.filter((key) => !this.#restartRequired.has(key) && differs(key, previous)),
      restart_required: sent.filter((key) => this.#restartRequired.has(key) && differs(key, live)),
    };
  }
}
