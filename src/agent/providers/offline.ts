import { defineModelProvider } from '../model-provider.js';
import type { ChatMessage, ChatModel, ModelRequest, ModelResponse, ModelStreamPart } from '../chat-model.js';
import { throwIfAborted } from '../model-errors.js';

/** The model name reported by the offline model. */
export const OFFLINE_MODEL = 'offline';

/**
 * How a message asks the offline model for a tool: `use tool <name>`, optionally followed by
 * `with <JSON object>` (the rest of the message), e.g. `use tool hello_greet with {"name": "Ada"}`.
 */
export const OFFLINE_TOOL_SYNTAX = /\buse tool ([a-z][a-z0-9_]*)(?:\s+with\s+([\s\S]*))?/i;

const PREFIX = '[offline model]';

/** True for the characters JavaScript's `\s` matches (the same set, checked by code unit). */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * The number of runs of non-space characters in `text`, as `text.split(/\s+/).filter(Boolean)`
 * counts them, without building the array: every turn counts the whole history.
 */
function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index += 1) {
    const space = isSpace(text.charCodeAt(index));
    if (!space && !inWord) words += 1;
    inWord = !space;
  }
  return words;
}

/** Characters of text each generation of `wordsOf`'s counts holds before the next one starts. */
const MAX_COUNTED_CHARACTERS = 1 << 20;
/** Counts of the texts seen since the current generation started, and their characters. */
let recentCounts = new Map<string, number>();
let recentCharacters = 0;
/** The generation before: a text found here moves to the recent one. */
let olderCounts = new Map<string, number>();

/**
 * `countWords(text)`, remembered: every turn counts the whole history again, and the history's
 * texts (and the system prompt) are the same strings turn after turn, so a map lookup (the
 * engine keeps a string's hash once computed) replaces a walk over every character. Counts are
 * kept in two generations of at most a million characters each: when the recent one is full it
 * becomes the older one and the one before is dropped, so the texts still in use (found and
 * moved up since) stay counted — one map cleared when full forgot them all, and with a million
 * characters of live histories (200 sessions of 20 messages) nearly every text was counted again.
 */
function wordsOf(text: string): number {
  const recent = recentCounts.get(text);
  if (recent !== undefined) return recent;
  return remember(text, olderCounts.get(text) ?? countWords(text));
}

/** Keeps `words`, the count of `text`, in the recent generation; returns it. */
function remember(text: string, words: number): number {
  if (text.length > MAX_COUNTED_CHARACTERS) return words;
  if (recentCharacters + text.length > MAX_COUNTED_CHARACTERS) {
    olderCounts = recentCounts;
    recentCounts = new Map();
    recentCharacters = 0;
  }
  recentCounts.set(text, words);
  recentCharacters += text.length;
  return words;
}

function lastTurnStart(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const role = messages[index]!.role;
    if (role === 'user' || role === 'system') return index;
  }
  return -1;
}

const attachmentsOf = (message: ChatMessage) => (message.role === 'user' ? (message.attachments ?? []) : []);

function answer(request: ModelRequest): Pick<ModelResponse, 'text' | 'toolCalls' | 'finishReason'> {
  const { messages, tools } = request;
  const start = lastTurnStart(messages);
  const said = start >= 0 ? messages[start]!.content : '';
  const results = messages.slice(start + 1).filter((message) => message.role === 'tool');
  if (results.length > 0) {
    const lines = results.map((result) => `${result.name} answered: ${result.content}`);
    return {
      text: `${PREFIX} I used ${results.length === 1 ? 'a tool' : `${results.length} tools`}. ${lines.join('; ')}`,
      toolCalls: [],
      finishReason: 'stop',
    };
  }
  const asked = OFFLINE_TOOL_SYNTAX.exec(said);
  if (asked !== null && request.toolChoice !== 'none') {
    const name = asked[1]!.toLowerCase();
    if (tools.some((tool) => tool.name === name)) {
      const args = asked[2]?.trim() || '{}';
      return {
        text: '',
        toolCalls: [{ id: `call_offline_${messages.length}`, name, arguments: args }],
        finishReason: 'tool_calls',
      };
    }
    const known = tools.map((tool) => tool.name).join(', ') || 'none';
    return {
      text: `${PREFIX} There is no tool named ${name}. Tools I can use: ${known}.`,
      toolCalls: [],
      finishReason: 'stop',
    };
  }
  const earlier = messages
    .slice(0, Math.max(0, start))
    .filter((message) => message.role === 'user' || message.role === 'assistant').length;
  const parts = [
    `${PREFIX} No language model is configured for this actor, so this is a fixed local reply. You said: ${said}`,
  ];
  const attached = start >= 0 ? attachmentsOf(messages[start]!) : [];
  if (attached.length > 0) {
    parts.push(
      `You attached ${attached.length} file${attached.length === 1 ? '' : 's'}: ${attached.map((attachment) => `${attachment.name} (${attachment.mimeType})`).join(', ')}.`,
    );
  }
  if (earlier > 0)
    parts.push(`(I can see ${earlier} earlier message${earlier === 1 ? '' : 's'} of this conversation.)`);
  if (tools.length > 0)
    parts.push(
      `To call a tool, say: use tool <name> with {JSON arguments}. Tools: ${tools.map((tool) => tool.name).join(', ')}.`,
    );
  return { text: parts.join('\n\n'), toolCalls: [], finishReason: 'stop' };
}

function respond(request: ModelRequest): ModelResponse {
  throwIfAborted(request.signal);
  const reply = answer(request);
  let input = 0;
  for (const message of request.messages) input += wordsOf(message.content);
  // The reply's text is the next turn's history: its count is kept for then.
  const output =
    remember(reply.text, countWords(reply.text)) +
    reply.toolCalls.reduce((sum, call) => sum + countWords(call.arguments), 0);
  return { ...reply, usage: { inputTokens: input, outputTokens: output }, model: OFFLINE_MODEL };
}

/**
 * A deterministic local model, the default when no model is configured: it says plainly that it
 * is the offline model, echoes the message, and calls a tool when the message says
 * `use tool <name> with {...}` (see `OFFLINE_TOOL_SYNTAX`), then reports what the tool answered.
 * Tokens are counted as words.
 * @example
 * const model = createOfflineModel();
 * const { text } = await model.generate({ messages: [{ role: 'user', content: 'hi' }], tools: [], signal: AbortSignal.timeout(1000) });
 */
export function createOfflineModel(): ChatModel {
  return {
    name: OFFLINE_MODEL,
    provider: OFFLINE_MODEL,
    async generate(request) {
      return respond(request);
    },
    async *stream(request): AsyncGenerator<ModelStreamPart> {
      const response = respond(request);
      for (const delta of response.text.split(/(?<=\s)(?=\S)/)) {
        if (delta === '') continue;
        throwIfAborted(request.signal);
        yield { type: 'text-delta', delta };
      }
      yield { type: 'finish', response };
    },
  };
}

/** The deterministic local model: it answers without a server. */
export const offlineProvider = defineModelProvider({
  name: 'offline',
  description:
    'the deterministic local model: it answers without a server, echoes the message and calls a tool when told `use tool <name> with {…}` ([The offline model](#the-offline-model))',
  needs: [],
  createModel: () => createOfflineModel(),
});
