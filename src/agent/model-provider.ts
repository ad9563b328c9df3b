import type { Logger } from '../log/logger.js';
import type { ChatModel } from './chat-model.js';
import type { ModelHeaders } from './model-headers.js';

/** The agent's knobs a model is made from (`LLM_*`, settings first, then the environment). */
export interface ModelSettings {
  /** `LLM_BASE_URL`: the server's `/v1` URL; unset means the OpenAI API. */
  readonly baseUrl: string | undefined;
  /** `LLM_API_KEY` (a secret: never logged). */
  readonly apiKey: string | undefined;
  /** `LLM_MODEL`; empty when unset. */
  readonly model: string;
  /** `LLM_HEADERS`: extra headers sent on every model call (their values are secrets). */
  readonly headers: ModelHeaders;
  /** `LLM_TIMEOUT_MS` (default 60,000). */
  readonly timeoutMs: number;
  /** `LLM_MAX_RETRIES` (default 2). */
  readonly maxRetries: number;
}

/** A variable a model provider may need set (not empty) before it can answer. */
export type ModelProviderNeed = 'LLM_MODEL' | 'LLM_BASE_URL' | 'LLM_API_KEY';

/**
 * One model provider of the agent: the name `LLM_PROVIDER` gives, the Markdown of its row in
 * docs/agent.md, the variables it needs, and how it makes its model.
 */
export interface ModelProvider<Name extends string = string> {
  /** The value of `LLM_PROVIDER` that selects it, in kebab-case. */
  readonly name: Name;
  /** What answers, one Markdown table cell. */
  readonly description: string;
  /**
   * The variables it cannot answer without. With `LLM_PROVIDER` unset, the first provider of the
   * list whose needs are all set answers; with it set, an empty one refuses the configuration.
   */
  readonly needs: readonly ModelProviderNeed[];
  /**
   * Makes its model from the agent's knobs (again whenever one of them changes). A model that
   * calls a server says over which `transport` it fetches whole answers; `chat_model_selected`
   * then names it and the headers it sends.
   */
  readonly createModel: (
    settings: ModelSettings,
    context: { readonly logger: Logger },
  ) => ChatModel & { readonly transport?: string };
}

/**
 * Declares one model provider, keeping its name as a literal type so the names of
 * `MODEL_PROVIDERS` are read from the list.
 * @param provider the provider's name, documentation, needs and model.
 * @example
 * export const echoProvider = defineModelProvider({ name: 'echo', description: 'repeats the message', needs: [], createModel: () => echoModel });
 */
export function defineModelProvider<Name extends string>(provider: ModelProvider<Name>): ModelProvider<Name> {
  return Object.freeze({ ...provider, needs: Object.freeze([...provider.needs]) });
}
