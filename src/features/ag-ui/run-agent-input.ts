import * as v from 'valibot';
import { SessionId } from '../../invoke/chat-request.js';

/** A part of a user message's content: only `text` parts are read; others are refused when the turn is built. */
const ContentPart = v.looseObject({ type: v.string() });

/** A message of the conversation the client keeps (`role` and its fields); only the last one, the user's, is read. */
const Message = v.looseObject({
  id: v.string(),
  role: v.picklist(
    ['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning'],
    'must be "developer", "system", "assistant", "user", "tool", "activity" or "reasoning"',
  ),
  content: v.optional(v.union([v.string(), v.array(ContentPart)], 'must be a string or an array of content parts')),
});

/** A tool the client offers (a frontend tool): listed by AG-UI, not called by the actor. */
const Tool = v.looseObject({ name: v.string(), description: v.string() });

/** Ambient information for the run: accepted and not read. */
const Context = v.looseObject({ description: v.string(), value: v.string() });

/** An answer to an interrupt (a tool call's approval) the run before this one ended with. */
const ResumeEntry = v.looseObject({
  interruptId: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  status: v.picklist(['resolved', 'cancelled'], 'must be "resolved" or "cancelled"'),
  payload: v.optional(v.unknown()),
});

/**
 * The body of `POST /agent/ag-ui`: AG-UI's `RunAgentInput` (protocol 1.0), as `HttpAgent` from
 * `@ag-ui/client` posts it. `threadId` is the actor's session, the last message (the user's) the
 * turn, `resume` the answers to the approvals the thread's run waits for; `tools`, `context` and
 * `state` are accepted and not read (the actor runs its own tools and keeps its own history).
 * Keys the protocol may add later are let through, as its own schema does.
 */
export const RunAgentInput = v.pipe(
  v.looseObject({
    threadId: v.pipe(SessionId, v.description("The thread: the actor's session_id, with its rules")),
    runId: v.pipe(
      v.string(),
      v.minLength(1, 'must not be empty'),
      v.description("The client's id of this run, echoed in RUN_STARTED and RUN_FINISHED"),
    ),
    protocolVersion: v.optional(v.string()),
    parentRunId: v.optional(v.string()),
    state: v.optional(v.unknown()),
    messages: v.array(Message),
    tools: v.optional(v.array(Tool)),
    context: v.optional(v.array(Context)),
    forwardedProps: v.optional(v.unknown()),
    resume: v.optional(v.array(ResumeEntry)),
  }),
  v.title('RunAgentInput'),
);

/** A validated `RunAgentInput`. */
export type RunAgentInput = v.InferOutput<typeof RunAgentInput>;
