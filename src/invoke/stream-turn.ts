import { ActorError } from '../core/actor-error.js';
import type { ChatReply } from './chat-reply.js';
import { INVOKE_PATH } from './chat-request.js';
import { runIdempotent, type IdempotencyDecision } from './idempotency.js';
import { runTurn, type Turn } from './run-turn.js';
import type { TurnServices } from './turn-services.js';
import { UiMessageStreamWriter } from './ui-message-stream.js';

/** A streamed invoke: the turn without its signal and events (the stream supplies both). */
export type StreamedTurn = Omit<Turn, 'signal' | 'onEvent'> & {
  /** The request's own signal: aborted when the client disconnects. */
  readonly requestSignal: AbortSignal;
  readonly idempotency: Exclude<IdempotencyDecision, { kind: 'replay' }>;
  /** Ends the request's time in flight; called once, when the stream ends. */
  readonly leave: () => void;
};

/**
 * Answers an invoke as an AI SDK UI message stream. The request stays in flight (graceful
 * shutdown waits for it) until the stream ends; a client that disconnects aborts the model
 * call; a shutdown that gives up waiting ends the stream with an `abort` frame. The invoke is
 * counted once, whatever way the stream ends.
 */
export function streamTurn(services: TurnServices, turn: StreamedTurn): ReadableStream<Uint8Array> {
  const abort = services.lifecycle.linkWork(turn.requestSignal);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const writer = new UiMessageStreamWriter(controller);
      writer.start(turn.messageId);
      void (async () => {
        try {
          writer.finish(
            await runIdempotent(turn.idempotency, (claim) =>
              runTurn(services, { ...turn, signal: abort.signal, onEvent: (event) => writer.event(event), claim }),
            ),
          );
        } catch (error) {
          if (services.lifecycle.shutdownSignal.aborted) writer.abort();
          else if (error instanceof ActorError) writer.error(`${error.code}: ${error.detail ?? error.title}`);
          else {
            services.logger.error('unhandled_error', {
              request_id: turn.requestId,
              path: INVOKE_PATH,
              error: (error as Error).message,
              stack: (error as Error).stack,
            });
            writer.error(`internal_error: Something went wrong; quote request id ${turn.requestId} when reporting it`);
          }
        } finally {
          writer.close();
          abort.dispose();
          turn.leave();
        }
      })();
    },
    cancel() {
      abort.abort(new DOMException('The client went away', 'AbortError'));
    },
  });
}

/** Streams a stored reply again, for a completed `Idempotency-Key` retry that asks for a stream. */
export function streamReplay(reply: ChatReply): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      new UiMessageStreamWriter(controller).replay(reply);
    },
  });
}
