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
import type { ENVIRONMENT_VARIABLES } from '../environment/environment-variables.js';
import { isStoreTimeout } from '../store/store-deadline.js';

/** What `PUT /settings` answers. */
export interface SettingsUpdateResult {
  readonly settings: Record<string, unknown>;
  readonly applied: string[];
  readonly restart_required: string[];
}

/** Overrides with a change over them, and the settings they give (or the schema's issues). */
interface MergedSettings {
  readonly overrides: Record<string, unknown>;
  readonly result: v.SafeParseResult<v.GenericSchema>;
}

/** Saves settings overrides: replaces what is saved with `merge(saved)` atomically and returns the result (`Store.updateSettingsOverrides`). */
export type SettingsPersistence = (
  merge: (saved: Record<string, unknown>) => Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/** The variable that sets how often saved settings are read back (a type-checked name, for messages). */
const REFRESH_VARIABLE: keyof typeof ENVIRONMENT_VARIABLES = 'SETTINGS_REFRESH_MS';

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

  constructor(
    definition: Pick<ActorDefinition, 'settings' | 'restartRequired'>,
    env: ActorEnvironment,
    options: ActorSettingsOptions = {},
  ) {
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
      throw new StartupRefusal(
        settingKeyOf(result.issues[0]!) || 'settings',
        `Invalid settings: ${problems.join('; ')}`,
      );
    }
    this.#current = Object.freeze(result.output as Record<string, unknown>);
  }

  /** The issues, each about a secret setting with its message replaced by `secretIssueDetail`. */
  #withSecretsMasked(issues: readonly v.BaseIssue<unknown>[]): v.BaseIssue<unknown>[] {
    return issues.map((issue) =>
      this.secretKeys.has(settingKeyOf(issue))
        ? { ...issue, message: secretIssueDetail(issue), received: SECRET_MASK }
        : issue,
    );
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

  /** The current values, secrets included: for the actor's own code only. Frozen: a change of settings replaces the object. */
  get values(): Readonly<Record<string, unknown>> {
    return this.#current;
  }

  /** `values` (the live ones unless told otherwise) with every secret replaced by a mask (or null when unset). */
  redacted(values: Readonly<Record<string, unknown>> = this.#current): Record<string, unknown> {
    const shown: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(values)) {
      shown[key] = this.secretKeys.has(key)
        ? value === undefined || value === null || value === ''
          ? null
          : SECRET_MASK
        : value;
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
    this.#current = Object.freeze(result.output as Record<string, unknown>);
    return dropped;
  }

  /**
   * Reads the saved overrides through `load` and applies them when they differ from the ones
   * in use (another replica saved a change), queued like updates so it never undoes one.
   * @returns the settings whose value changed
   */
  refresh(load: () => Promise<Record<string, unknown>>): Promise<string[]> {
    return this.#enqueue(async () => {
      const saved = await load();
      const previous = this.#current;
      this.applySavedOverrides(saved);
      this.#current = Object.freeze(this.#live(this.#current, previous));
      return Object.keys({ ...previous, ...this.#current }).filter(
        (key) => JSON.stringify(previous[key]) !== JSON.stringify(this.#current[key]),
      );
    });
  }

  /**
   * Validates a partial update, persists it and applies it — all or nothing. `persist` merges
   * it into the overrides saved by then (see `Store.updateSettingsOverrides`), so an update
   * from another replica is kept, and the merge is validated as a whole. Updates of this
   * process run one after another.
   */
  update(body: unknown, persist: SettingsPersistence): Promise<SettingsUpdateResult> {
    return this.#enqueue(() => this.#update(body, persist));
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** What the actor runs with once `saved` is stored: `saved`, but each restart-required key as it is live now (`previous`). */
  #live(
    saved: Readonly<Record<string, unknown>>,
    previous: Readonly<Record<string, unknown>>,
  ): Record<string, unknown> {
    const live = { ...saved };
    for (const key of this.#restartRequired) {
      if (Object.hasOwn(previous, key)) live[key] = previous[key];
      else delete live[key];
    }
    return live;
  }

  /** The overrides `saved` with `changes` over them (unknown keys left out), validated with the base: the problems, or the settings. */
  #merge(saved: Record<string, unknown>, changes: Record<string, unknown>): MergedSettings {
    const overrides = Object.fromEntries(
      Object.entries({ ...saved, ...changes }).filter(([key]) => Object.hasOwn(this.#schema.entries, key)),
    );
    const result = v.safeParse(this.#schema, { ...this.#base, ...overrides });
    return { overrides, result };
  }

  async #update(body: unknown, persist: SettingsPersistence): Promise<SettingsUpdateResult> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw validationFailed(
        [{ pointer: '', detail: 'must be an object' }],
        'The body must be a JSON object of settings',
      );
    }
    const changes = body as Record<string, unknown>;
    const refuse = ({ result }: MergedSettings) => {
      // Every bad field of the body in one answer: the unknown keys, then the known ones' issues, then the check's.
      const problems: FieldProblem[] = Object.keys(changes)
        .filter((key) => !Object.hasOwn(this.#schema.entries, key))
        .map((key) => ({ pointer: jsonPointer(key), detail: 'is not a known setting' }));
      if (!result.success) problems.push(...fieldProblems(this.#withSecretsMasked(result.issues)));
      else if (problems.length === 0) problems.push(...this.#check(result.output as Record<string, unknown>));
      if (problems.length > 0)
        throw validationFailed(problems, invalidFieldCount('The settings body', problems.length));
    };
    // Checked first against the overrides in use, so a bad body is refused without the store.
    refuse(this.#merge(this.#overrides, changes));
    let output: Record<string, unknown> | undefined;
    let overrides: Record<string, unknown>;
    try {
      overrides = await persist((saved) => {
        const merged = this.#merge(saved, changes);
        refuse(merged);
        output = merged.result.output as Record<string, unknown>;
        return merged.overrides;
      });
    } catch (error) {
      if (error instanceof ActorError) throw error;
      // A write that outlived its deadline may still commit: then every replica applies it at its next read-back.
      const detail = isStoreTimeout(error)
        ? `Settings could not be saved: the database did not answer in time; the change may still be saved, and is then applied within ${REFRESH_VARIABLE}`
        : 'Settings could not be saved: the database is unreachable; nothing was changed';
      throw new ActorError('store_unavailable', { detail, cause: error });
    }
    const previous = this.#current;
    const saved = output!;
    this.#overrides = overrides;
    this.#current = Object.freeze(this.#live(saved, previous));
    const differs = (key: string, from: Readonly<Record<string, unknown>>) =>
      JSON.stringify(from[key]) !== JSON.stringify(saved[key]);
    const sent = Object.keys(changes);
    return {
      settings: this.redacted(saved),
      applied: sent.filter((key) => !this.#restartRequired.has(key) && differs(key, previous)),
      restart_required: sent.filter((key) => this.#restartRequired.has(key) && differs(key, this.#current)),
    };
  }
}
