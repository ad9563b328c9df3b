import { defineModelProvider } from '../model-provider.js';
import type { ClientOptions, OpenAI } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { FinishReason } from '../../invoke/chat-reply.js';
import type {
  ChatMessage,
  ChatModel,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ModelToolCall,
} from '../chat-model.js';
import type { Logger } from '../../log/logger.js';
import { attachedFileText } from '../model-attachment.js';
import { linkAbort, type LinkedAbort } from '../../core/linked-abort.js';
import { abortReason, modelTimeoutError, modelUpstreamError } from '../model-errors.js';
import { withoutCredentials } from '../../core/without-credentials.js';
import { ENVIRONMENT_VARIABLES } from '../../environment/environment-variables.js';
import type { ModelHeaders } from '../model-headers.js';
import { createModelRedactor } from '../model-secret-redactor.js';
import { shorten, upstreamReason, type UpstreamReason } from '../upstream-reason.js';
import { callChatCompletions, ModelConnectionError, ModelStatusError } from '../chat-completion-call.js';
import { fetchModelTransport } from '../model-http-transport.js';
import { loadNodeModelTransport } from '../node-model-transport.js';

/** Options of the OpenAI-compatible model. */
export interface OpenAICompatibleModelOptions {
  /** The model name at the server, e.g. `gpt-4o-mini` or `llama3.1`. */
  readonly model: string;
  /** The server's `/v1` URL (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter…); default OpenAI. */
  readonly baseUrl?: string;
  /** Sent as a bearer token; local servers that need none may leave it out. */
  readonly apiKey?: string;
  /** Extra headers sent on every call, e.g. a gateway's routing headers (`parseModelHeaders` checks them); their values are treated as secrets. */
  readonly headers?: ModelHeaders;
  /** Longest wait for a whole non-streamed call (retries included) or for the next chunk of a stream (default 60,000 ms). */
  readonly timeoutMs?: number;
  /** Retries of connection errors, 408, 409, 429 and 5xx answers, with back-off (default 2). */
  readonly maxRetries?: number;
  /** A `fetch` to use instead of the runtime's own transport (`node:http` on Node, the global `fetch` elsewhere). */
  readonly fetch?: typeof fetch;
  /** Receives the SDK's own warnings and errors as `model_client_log`; silent without one. */
  readonly logger?: Logger;
}

/** The OpenAI-compatible model, with the transport its whole answers take. */
export interface OpenAICompatibleModel extends ChatModel {
  /** `node:http` on Node; `fetch` on Bun and Deno, or when a `fetch` was given. */
  readonly transport: 'node:http' | 'fetch';
}

/** The default time-out of a model call, in milliseconds (`LLM_TIMEOUT_MS`). */
export const DEFAULT_MODEL_TIMEOUT_MS = ENVIRONMENT_VARIABLES.LLM_TIMEOUT_MS.default;

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      if (message.toolCalls === undefined || message.toolCalls.length === 0)
        return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    case 'user':
      if (message.attachments === undefined || message.attachments.length === 0)
        return { role: 'user', content: message.content };
      return {
        role: 'user',
        content: [
          { type: 'text', text: message.content },
          ...message.attachments.map((attachment) =>
            attachment.kind === 'image'
              ? { type: 'image_url' as const, image_url: { url: attachment.url } }
              : { type: 'text' as const, text: attachedFileText(attachment) },
          ),
        ],
      };
    default:
      return { role: message.role, content: message.content };
  }
}

function toParams(model: string, request: ModelRequest): ChatCompletionCreateParamsBase {
  const params: ChatCompletionCreateParamsBase = { model, messages: request.messages.map(toOpenAIMessage) };
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    params.tool_choice = request.toolChoice ?? 'auto';
  }
  return params;
}

const finishReason = (raw: string | null | undefined, toolCalls: readonly ModelToolCall[]): FinishReason =>
  (raw ? FINISH_REASONS[raw] : undefined) ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');

/** The model's answer in a whole (non-streamed) chat completion; an answer without choices throws. */
function responseFromCompletion(completion: ChatCompletion, fallbackModel: string): ModelResponse {
  const choice = completion.choices?.[0];
  if (choice === undefined) throw new Error('the answer has no choices');
  const toolCalls: ModelToolCall[] = (choice.message?.tool_calls ?? []).flatMap((call) =>
    call.type === 'function'
      ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' }]
      : [],
  );
  return {
    text: choice.message?.content ?? '',
    toolCalls,
    usage: {
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    },
    finishReason: finishReason(choice.finish_reason, toolCalls),
    model: completion.model || fallbackModel,
  };
}

/** Whether a streamed call was answered as a stream: some servers ignore `stream: true` and send one JSON completion. */
const isEventStream = (response: Response) =>
  (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');

/** Refusals whose reason is about credentials: a refused key's message often quotes the key, or part of it. */
const CREDENTIAL_STATUSES: ReadonlySet<number> = new Set([401, 403, 407]);

/**
 * Whether the API caller may read the server's reason for an HTTP error: a 4xx says what was
 * wrong with the request (a missing gateway header, an unknown model, a context too long), so
 * it is shown, unless it is about credentials; a 5xx tells of the server's insides (internal
 * addresses, stack traces), so its reason goes to the log only.
 */
const reasonIsShown = (status: number) => status >= 400 && status < 500 && !CREDENTIAL_STATUSES.has(status);

const sdkLogger = (logger: Logger) => {
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, ...rest: unknown[]) =>
      logger[level]('model_client_log', {
        message: [message, ...rest.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))]
          .join(' ')
          .slice(0, 2000),
      });
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
};

type OpenAISdk = typeof import('openai');

/** The server a model without `baseUrl` calls. */
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** `<base>/chat/completions`, joined as the `openai` SDK joins it (one slash between them). */
const chatCompletionsUrl = (base: string) => new URL(`${base.endsWith('/') ? base : `${base}/`}chat/completions`);

/** The headers of every call: JSON both ways, the bearer token, then the configured headers (names in lower case, so one may replace a default). */
function requestHeaders(apiKey: string, configured: ModelHeaders | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': 'actorkit',
    authorization: `Bearer ${apiKey}`,
  };
  for (const [name, value] of Object.entries(configured ?? {})) headers[name.toLowerCase()] = value;
  return headers;
}

let openAISdk: Promise<{ sdk: OpenAISdk; Client: typeof OpenAI }> | undefined;

/** The body of each error answer the client turned into an `APIError`: the SDK keeps only its `error` field. */
const errorBodies = new WeakMap<object, unknown>();

/**
 * Imports the `openai` SDK on the first model call, so an actor on the offline model never
 * loads it, with a client that keeps the whole body of an error answer: a gateway's reason
 * (`{"status": "failure", "message": …}`) is not where the SDK looks for it.
 */
const importOpenAISdk = () =>
  (openAISdk ??= import('openai').then((sdk) => {
    class Client extends sdk.OpenAI {
      protected override makeStatusError(status: number, error: object, message: string | undefined, headers: Headers) {
        const made = super.makeStatusError(status, error, message, headers);
        errorBodies.set(made, error ?? message);
        return made;
      }
    }
    return { sdk, Client };
  }));

/** What a failed call tells: the status and body of an error answer, or that no answer came. */
function describeFailure(
  error: unknown,
  sdk: OpenAISdk | undefined,
): { status?: number; body?: unknown; unreachable: boolean } {
  if (error instanceof ModelStatusError) return { status: error.status, body: error.body, unreachable: false };
  if (error instanceof ModelConnectionError) return { unreachable: true };
  if (sdk === undefined) return { unreachable: false };
  if (error instanceof sdk.APIError && error.status !== undefined)
    return { status: error.status, body: errorBodies.get(error), unreachable: false };
  return { unreachable: error instanceof sdk.APIConnectionError };
}

/** Aborts a model call when the caller's signal aborts or when `timeoutMs` passes without `touch()`. */
class CallDeadline {
  readonly #link: LinkedAbort;
  readonly #timeoutMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  expired = false;

  constructor(caller: AbortSignal, timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#link = linkAbort(caller);
    this.touch();
  }

  get signal(): AbortSignal {
    return this.#link.signal;
  }

  /** Restarts the wait: a stream calls it for every chunk. */
  touch(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.expired = true;
      this.#link.abort(new Error('model call timed out'));
    }, this.#timeoutMs);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#link.dispose();
  }
}

/**
 * A model served over the OpenAI chat-completions API: OpenAI itself, Ollama, vLLM, llama.cpp,
 * LM Studio, OpenRouter, Groq… A whole answer is one POST and its JSON, with the `openai` SDK's
 * retry rule (`callChatCompletions`) over the runtime's cheapest transport (`node:http` with
 * keep-alive on Node, `fetch` elsewhere); a stream goes through the official `openai` SDK,
 * imported on the first streamed call, not when the actor starts. A time-out becomes a 504
 * `model_timeout`, anything else the server gets wrong a 502 `model_error`.
 * @example
 * const model = createOpenAICompatibleModel({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' });
 */
export function createOpenAICompatibleModel(options: OpenAICompatibleModelOptions): OpenAICompatibleModel {
  if (options.model.trim() === '') throw new Error('The OpenAI-compatible model needs a model name (LLM_MODEL)');
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const baseUrl = options.baseUrl || undefined;
  const maxRetries = options.maxRetries ?? 2;
  const nodeTransport = options.fetch ? undefined : loadNodeModelTransport();
  const transport = nodeTransport ?? fetchModelTransport(options.fetch);
  const serverUrl = baseUrl ?? OPENAI_BASE_URL;
  // The SDK refuses to start without a key; local servers that need none ignore this one.
  const apiKey = options.apiKey || 'not-set';
  const completionsUrl = chatCompletionsUrl(serverUrl);
  const callHeaders = requestHeaders(apiKey, options.headers);
  const clientOptions: ClientOptions = {
    apiKey,
    baseURL: baseUrl ?? null,
    timeout: timeoutMs,
    maxRetries,
    ...(options.headers && Object.keys(options.headers).length > 0 ? { defaultHeaders: options.headers } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.logger
      ? { logLevel: 'warn' as const, logger: sdkLogger(options.logger) }
      : { logLevel: 'off' as const }),
  };
  let loaded: Promise<{ sdk: OpenAISdk; client: OpenAI }> | undefined;
  const loadClient = () =>
    (loaded ??= importOpenAISdk().then(({ sdk, Client }) => ({ sdk, client: new Client(clientOptions) })));
  const where = baseUrl === undefined ? 'the OpenAI API' : withoutCredentials(baseUrl);
  /** Upstream text fit for the log: no `user:password@`, no API key, no header value. */
  const forTheLog = createModelRedactor({ apiKey: options.apiKey, headers: options.headers });
  /** Upstream text fit for the API caller: nor the server's address. */
  const forTheCaller = createModelRedactor({ apiKey: options.apiKey, headers: options.headers, baseUrl: serverUrl });
  const reasonText = (reason: UpstreamReason) =>
    reason.code === undefined ? reason.message : `${reason.message} (${reason.code})`;

  // The caller learns what happened in general terms, and the server's reason for a 4xx that is
  // not about credentials; the server's address and its own words (which may quote a key or a
  // URL with credentials) go to the log, with the secrets struck out.
  const failure = (error: unknown, deadline: CallDeadline, caller: AbortSignal, sdk?: OpenAISdk): Error => {
    if (caller.aborted) return abortReason(caller);
    if (deadline.expired || (sdk !== undefined && error instanceof sdk.APIConnectionTimeoutError))
      return modelTimeoutError(timeoutMs, error);
    const { status, body, unreachable } = describeFailure(error, sdk);
    const logged = upstreamReason(body, forTheLog);
    const upstream =
      status !== undefined && logged !== undefined
        ? `${status} ${logged.message}`
        : shorten(
            forTheLog(
              error instanceof Error
                ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`
                : String(error),
            ),
          );
    options.logger?.warn('model_call_failed', {
      model: options.model,
      base_url: where,
      status: status ?? null,
      error: upstream,
      ...(logged?.code === undefined ? {} : { upstream_code: logged.code }),
    });
    const cause = new Error(upstream);
    if (status !== undefined) {
      const shown = reasonIsShown(status) ? upstreamReason(body, forTheCaller) : undefined;
      return modelUpstreamError(
        `The model server answered with HTTP status ${status}${shown === undefined ? '' : `: ${reasonText(shown)}`}`,
        cause,
      );
    }
    if (unreachable) return modelUpstreamError('The model server could not be reached', cause);
    return modelUpstreamError('The model server sent an answer that could not be used', cause);
  };

  return {
    name: options.model,
    transport: nodeTransport ? 'node:http' : 'fetch',
    // The protocol's provider: what OpenTelemetry's own OpenAI instrumentation reports for any server it speaks to.
    provider: 'openai',

    async generate(request) {
      const deadline = new CallDeadline(request.signal, timeoutMs);
      try {
        const completion = await callChatCompletions({
          transport,
          url: completionsUrl,
          headers: request.traceHeaders === undefined ? callHeaders : { ...callHeaders, ...request.traceHeaders },
          body: JSON.stringify({ ...toParams(options.model, request), stream: false }),
          signal: deadline.signal,
          maxRetries,
        });
        return responseFromCompletion(completion as ChatCompletion, options.model);
      } catch (error) {
        throw failure(error, deadline, request.signal);
      } finally {
        deadline.clear();
      }
    },

    async *stream(request): AsyncGenerator<ModelStreamPart> {
      const { sdk, client } = await loadClient();
      const deadline = new CallDeadline(request.signal, timeoutMs);
      const calls = new Map<number, { id: string; name: string; arguments: string }>();
      let text = '';
      let rawFinish: string | null | undefined;
      let usage = { inputTokens: 0, outputTokens: 0 };
      let model = options.model;
      let answered = false;
      try {
        const { data: chunks, response } = await client.chat.completions
          .create(
            { ...toParams(options.model, request), stream: true, stream_options: { include_usage: true } },
            { signal: deadline.signal, headers: { ...request.traceHeaders } },
          )
          .withResponse();
        if (!isEventStream(response)) {
          // The SDK would read a JSON body as a stream without events: an empty answer.
          options.logger?.warn('model_stream_ignored', {
            model: options.model,
            base_url: where,
            content_type: response.headers.get('content-type'),
          });
          const whole = responseFromCompletion((await response.json()) as ChatCompletion, options.model);
          if (whole.text !== '') yield { type: 'text-delta', delta: whole.text };
          yield { type: 'finish', response: whole };
          return;
        }
        for await (const chunk of chunks as AsyncIterable<ChatCompletionChunk>) {
          deadline.touch();
          if (chunk.model) model = chunk.model;
          if (chunk.usage)
            usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
          const choice = chunk.choices?.[0];
          if (choice === undefined) continue;
          answered = true;
          if (choice.finish_reason) rawFinish = choice.finish_reason;
          for (const [position, delta] of (choice.delta?.tool_calls ?? []).entries()) {
            const index = delta.index ?? position;
            const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
            if (delta.id) call.id = delta.id;
            if (delta.function?.name) call.name += delta.function.name;
            if (delta.function?.arguments) call.arguments += delta.function.arguments;
            calls.set(index, call);
          }
          const content = choice.delta?.content;
          if (content) {
            text += content;
            yield { type: 'text-delta', delta: content };
          }
        }
        // The SDK ends a stream quietly when its signal aborts: that is a time-out or the caller leaving, not an answer.
        if (deadline.signal.aborted) throw deadline.signal.reason;
        if (!answered) throw new Error('the stream ended with no answer (no choice in any chunk)');
      } catch (error) {
        throw failure(error, deadline, request.signal, sdk);
      } finally {
        deadline.clear();
      }
      const toolCalls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, call]) => ({ id: call.id || `call_${index}`, name: call.name, arguments: call.arguments }));
      yield {
        type: 'finish',
        response: { text, toolCalls, usage, finishReason: finishReason(rawFinish, toolCalls), model },
      };
    },
  };
}

/** A server that speaks OpenAI's Chat Completions API, at `LLM_BASE_URL` (the OpenAI API when unset). */
export const openAICompatibleProvider = defineModelProvider({
  name: 'openai-compatible',
  description:
    "a server that speaks OpenAI's Chat Completions API at `LLM_BASE_URL` (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, a gateway…), asked for `LLM_MODEL`",
  needs: ['LLM_MODEL'],
  createModel: (settings, { logger }) =>
    createOpenAICompatibleModel({
      model: settings.model,
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      headers: settings.headers,
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      logger,
    }),
});
