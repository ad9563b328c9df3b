import {
  isTextUIPart,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';

async function drain<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const items: T[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return items;
    items.push(value);
  }
}

const streamOf = <T>(items: readonly T[]) =>
  new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });

/** What the AI SDK's own readers make of a UI message stream. */
export interface ReadUiStream {
  /** The SSE text as sent. */
  readonly raw: string;
  /** Every chunk, each validated by the AI SDK's `uiMessageChunkSchema`. */
  readonly chunks: UIMessageChunk[];
  /** The assistant message `readUIMessageStream` assembled. */
  readonly message: UIMessage | undefined;
  /** The text parts of that message, joined by a blank line (as the JSON reply joins steps). */
  readonly text: string;
  /** Errors the reader reported (an `error` chunk ends up here). */
  readonly errors: unknown[];
}

/**
 * Reads a UI message stream with the `ai` package's own `parseJsonEventStream` and
 * `readUIMessageStream`, as a `useChat` client would.
 */
export async function readUiStream(body: string | ReadableStream<Uint8Array>): Promise<ReadUiStream> {
  const raw = typeof body === 'string' ? body : await new Response(body).text();
  const chunks: UIMessageChunk[] = [];
  for (const result of await drain(
    parseJsonEventStream({ stream: new Response(raw).body!, schema: uiMessageChunkSchema }),
  )) {
    if (!result.success) throw result.error;
    chunks.push(result.value);
  }
  const errors: unknown[] = [];
  const snapshots = await drain(
    readUIMessageStream({ stream: streamOf(chunks), onError: (error) => errors.push(error) }),
  );
  const message = snapshots.at(-1);
  const text = (message?.parts ?? [])
    .filter(isTextUIPart)
    .map((part) => part.text)
    .join('\n\n');
  return { raw, chunks, message, text, errors };
}
