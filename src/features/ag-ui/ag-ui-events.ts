import { sseData, type UiStreamPart } from '../../invoke/ui-message-stream.js';

/** One AG-UI event (`{type, …}`), as `@ag-ui/core`'s schemas define it. */
type AgUiEvent = Readonly<Record<string, unknown>> & { readonly type: string };

/** The ids every run-scoped event names: the client's thread and run. */
interface RunIds {
  readonly threadId: string;
  readonly runId: string;
}

/** A tool call that waits for a person's approval: an AG-UI interrupt of the run. */
interface Interrupt {
  readonly id: string;
  readonly reason: 'tool_approval';
  readonly toolCallId: string;
}

const encoder = new TextEncoder();

/** The SSE frame of one event, as `@ag-ui/encoder`'s `EventEncoder` writes it: `data: <json>\n\n`. */
export function eventFrame(event: AgUiEvent): Uint8Array {
  return encoder.encode(`data: ${sseData(JSON.stringify(event))}\n\n`);
}

/** The JSON of each `data:` line of one SSE frame of the UI message stream; `[DONE]` is skipped. */
function partsOfFrame(frame: string): UiStreamPart[] {
  const parts: UiStreamPart[] = [];
  for (const line of frame.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = line.slice('data: '.length);
    if (data !== '[DONE]') parts.push(JSON.parse(data) as UiStreamPart);
  }
  return parts;
}

/**
 * Turns the turn's UI message stream parts into AG-UI events, one part at a time. It keeps what
 * the end needs (usage, the pending approvals) and tells whether the run's end was written.
 */
class AgUiEventMapper {
  readonly #ids: RunIds;
  readonly #interrupts: Interrupt[] = [];
  #messageId = 'message';
  #usage: Record<string, unknown> | undefined;
  #model: string | undefined;
  #sessionId: string | undefined;
  #actorRunId: string | undefined;
  #ended = false;

  constructor(ids: RunIds) {
    this.#ids = ids;
  }

  /** True once RUN_FINISHED or RUN_ERROR was written. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The events of one part, in order. */
  events(part: UiStreamPart): AgUiEvent[] {
    switch (part.type) {
      case 'start':
        return this.#start(part);
      case 'text-start':
        return [{ type: 'TEXT_MESSAGE_START', messageId: this.#textId(part), role: 'assistant' }];
      case 'text-delta':
        return part.delta === ''
          ? []
          : [{ type: 'TEXT_MESSAGE_CONTENT', messageId: this.#textId(part), delta: String(part.delta) }];
      case 'text-end':
        return [{ type: 'TEXT_MESSAGE_END', messageId: this.#textId(part) }];
      case 'tool-input-available': {
        const toolCallId = String(part.toolCallId);
        return [
          {
            type: 'TOOL_CALL_START',
            toolCallId,
            toolCallName: String(part.toolName),
            parentMessageId: this.#messageId,
          },
          { type: 'TOOL_CALL_ARGS', toolCallId, delta: JSON.stringify(part.input ?? {}) },
          { type: 'TOOL_CALL_END', toolCallId },
        ];
      }
      case 'tool-output-available':
        return [this.#toolResult(part, JSON.stringify(part.output ?? null), 'ok')];
      case 'tool-output-error':
        return [this.#toolResult(part, String(part.errorText), 'error')];
      case 'tool-output-denied':
        return [this.#toolResult(part, 'The call was denied', 'denied')];
      case 'tool-approval-request':
        this.#interrupts.push({
          id: String(part.approvalId),
          reason: 'tool_approval',
          toolCallId: String(part.toolCallId),
        });
        return [];
      case 'data-usage':
        this.#usage = part.data as Record<string, unknown>;
        return [];
      case 'data-session': {
        const data = part.data as { session_id?: string; model?: string };
        this.#sessionId = data.session_id;
        this.#model = data.model;
        return [];
      }
      case 'finish':
        return this.#finish(part);
      case 'error':
        return this.#error(String(part.errorText));
      case 'abort':
        return this.#error('runner_stopped: The actor stopped before the run finished');
      default:
        return [];
    }
  }

  /** RUN_ERROR for a stream that ended without saying how the run ended; nothing when it did. */
  close(): AgUiEvent[] {
    return this.#ended ? [] : this.#error('internal_error: The run ended without an answer');
  }

  #start(part: UiStreamPart): AgUiEvent[] {
    if (typeof part.messageId === 'string') this.#messageId = part.messageId;
    const metadata = part.messageMetadata as { run_id?: string } | undefined;
    this.#actorRunId = metadata?.run_id;
    return [
      {
        type: 'RUN_STARTED',
        ...this.#ids,
        ...(this.#actorRunId === undefined ? {} : { metadata: { actorkit_run_id: this.#actorRunId } }),
      },
    ];
  }

  #textId(part: UiStreamPart): string {
    return `${this.#messageId}_${String(part.id)}`;
  }

  #toolResult(part: UiStreamPart, content: string, status: 'ok' | 'error' | 'denied'): AgUiEvent {
    const toolCallId = String(part.toolCallId);
    return {
      type: 'TOOL_CALL_RESULT',
      messageId: `${toolCallId}_result`,
      toolCallId,
      content,
      role: 'tool',
      metadata: { actorkit_status: status },
    };
  }

  #finish(part: UiStreamPart): AgUiEvent[] {
    this.#ended = true;
    const metadata = part.messageMetadata as { run_state?: string } | undefined;
    if (metadata?.run_state === 'cancelled')
      return [{ type: 'RUN_FINISHED', ...this.#ids, outcome: { type: 'cancelled' } }];
    const awaitingInput = this.#interrupts.length > 0;
    const snapshot: AgUiEvent = {
      type: 'STATE_SNAPSHOT',
      snapshot: {
        actorkit: {
          run_id: this.#actorRunId ?? null,
          session_id: this.#sessionId ?? this.#ids.threadId,
          status: awaitingInput ? 'awaiting_input' : 'completed',
          pending_approvals: this.#interrupts.map(({ id, toolCallId }) => ({ id, tool_call_id: toolCallId })),
        },
      },
    };
    const usage = this.#usage as { input_tokens?: number; output_tokens?: number; total_tokens?: number } | undefined;
    return [
      snapshot,
      {
        type: 'RUN_FINISHED',
        ...this.#ids,
        outcome: awaitingInput ? { type: 'interrupt', interrupts: [...this.#interrupts] } : { type: 'success' },
        ...(usage === undefined
          ? {}
          : {
              usage: [
                {
                  ...(this.#model === undefined ? {} : { model: this.#model }),
                  inputTokens: usage.input_tokens ?? 0,
                  outputTokens: usage.output_tokens ?? 0,
                  totalTokens: usage.total_tokens ?? 0,
                },
              ],
            }),
      },
    ];
  }

  #error(errorText: string): AgUiEvent[] {
    this.#ended = true;
    const colon = errorText.indexOf(': ');
    return [
      {
        type: 'RUN_ERROR',
        message: colon === -1 ? errorText : errorText.slice(colon + 2),
        ...(colon === -1 ? {} : { code: errorText.slice(0, colon) }),
      },
    ];
  }
}

/**
 * The AG-UI event stream of a run: reads the run's AI SDK UI message stream (SSE frames of its
 * parts, as `answerInvoke` streams them) and writes the AG-UI events they map to, as SSE frames
 * (`@ag-ui/encoder`'s format). `start` is RUN_STARTED (its metadata names the actorkit run);
 * text parts are TEXT_MESSAGE_START/CONTENT/END; a tool call is TOOL_CALL_START, one
 * TOOL_CALL_ARGS with the whole arguments, TOOL_CALL_END, then TOOL_CALL_RESULT; the end is a
 * STATE_SNAPSHOT (`actorkit`: run, session, status, pending approvals) and RUN_FINISHED — with
 * outcome `interrupt` naming each approval the run waits for, or `cancelled` — or RUN_ERROR.
 * @param parts the run's UI message stream
 * @param ids the client's thread and run, which run-scoped events carry
 */
export function agUiEventStream(parts: ReadableStream<Uint8Array>, ids: RunIds): ReadableStream<Uint8Array> {
  const mapper = new AgUiEventMapper(ids);
  const decoder = new TextDecoder();
  let pending = '';
  const send = (controller: TransformStreamDefaultController<Uint8Array>, events: readonly AgUiEvent[]) => {
    for (const event of events) controller.enqueue(eventFrame(event));
  };
  return parts.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        let end = pending.indexOf('\n\n');
        while (end !== -1) {
          for (const part of partsOfFrame(pending.slice(0, end))) send(controller, mapper.events(part));
          pending = pending.slice(end + 2);
          end = pending.indexOf('\n\n');
        }
      },
      flush(controller) {
        for (const part of partsOfFrame(pending + decoder.decode())) send(controller, mapper.events(part));
        send(controller, mapper.close());
      },
    }),
  );
}
