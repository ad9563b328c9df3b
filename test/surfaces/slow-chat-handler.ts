import type { ChatHandler } from '../../src/invoke/chat-handler.js';

/** The answer a slow chat handler gives in full: each word followed by a space. */
export const answerOf = (words: readonly string[]) => words.map((word) => `${word} `).join('');

/** A slow chat handler, and when its run's signal stopped it. */
export type SlowChatHandler = ChatHandler & {
  /** `performance.now()` when the signal stopped it, undefined while it was not stopped. */
  readonly abortedAtMs: () => number | undefined;
  /** Whether the signal stopped it. */
  readonly aborted: () => boolean;
};

/**
 * A chat handler that streams `words`, one every `gapMs`, like a slow model; it stops at once
 * when its run is aborted (a cancel), so a run's cancel can be told from its completion.
 * @param words the answer, word by word
 * @param gapMs the wait before each word
 */
export function slowChatHandler(words: readonly string[], gapMs: number): SlowChatHandler {
  let abortedAtMs: number | undefined;
  const handler: ChatHandler = async (input) => {
    for (const word of words) {
      await new Promise<void>((resolve, reject) => {
        const abort = () => {
          clearTimeout(timer);
          abortedAtMs ??= performance.now();
          reject(input.signal.reason);
        };
        const timer = setTimeout(() => {
          input.signal.removeEventListener('abort', abort);
          resolve();
        }, gapMs);
        if (input.signal.aborted) abort();
        else input.signal.addEventListener('abort', abort, { once: true });
      });
      input.onEvent?.({ type: 'text-delta', delta: `${word} ` });
    }
    return {
      content: answerOf(words),
      toolCalls: [],
      finishReason: 'stop' as const,
      usage: { inputTokens: 3, outputTokens: words.length },
      model: 'slow',
    };
  };
  return Object.assign(handler, { abortedAtMs: () => abortedAtMs, aborted: () => abortedAtMs !== undefined });
}
