import type { ChatReply } from '../invoke/chat-reply.js';

/** An actor a test talks to without a server: an `ActorApp` (`createTestActor`, the template's `createApp`). */
export interface RequestableActor {
  /** Answers one request, as `app.request` does. */
  request(request: Request): Response | Promise<Response>;
}

/** One tool call the paused run asks a person about, as its reply lists it. */
export type PendingApproval = NonNullable<ChatReply['approvals']>[number];

/** A person's answer to one call: approved or not, and for a denial the reason the model is told. */
export type ApprovalDecision = boolean | { readonly approved: boolean; readonly reason?: string };

/** Who answers, as the invoke that carries the answers names them. */
export interface AnswerOptions {
  /** The answering user (`user_identifier`); default `tester`. */
  readonly userIdentifier?: string;
  /** Headers of the answering request, e.g. `{ 'X-Tenant-Id': 'acme' }` or an `Authorization`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Answers every approval the paused `reply` waits for, each as `decide` says, through the
 * session's next `POST /agent/invoke` (as a person's client would), and resolves with the reply
 * the run then gives: its final one, or `awaiting_input` again when the model asks anew. Throws
 * when `reply` waits for nothing, or when the actor refuses the answers (its problem in the message).
 */
async function answerApprovals(
  app: RequestableActor,
  reply: ChatReply,
  decide: (approval: PendingApproval, index: number) => ApprovalDecision,
  options: AnswerOptions = {},
): Promise<ChatReply> {
  const pending = reply.approvals ?? [];
  if (reply.status !== 'awaiting_input' || pending.length === 0)
    throw new Error(`Reply ${reply.id} waits for no approval: its status is ${reply.status}`);
  const answers = pending.map((approval, index) => {
    const decision = decide(approval, index);
    return typeof decision === 'boolean' ? { id: approval.id, approved: decision } : { id: approval.id, ...decision };
  });
  const response = await app.request(
    new Request('http://actor.test/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...options.headers },
      body: JSON.stringify({
        user_identifier: options.userIdentifier ?? 'tester',
        session_id: reply.session_id,
        approvals: answers,
      }),
    }),
  );
  if (response.status !== 200)
    throw new Error(`The actor refused the answers to run ${reply.id}: ${response.status} ${await response.text()}`);
  return (await response.json()) as ChatReply;
}

/**
 * Scripts a person's answers to the tool calls a run waits for (`needsApproval` tools), for an
 * actor's own vitest tests: invoke, get `awaiting_input`, answer with one of these, get the reply.
 * Each takes the app, the paused reply and optionally who answers (`AnswerOptions`).
 * @example
 * const paused = await (await app.request('/agent/invoke', invoke('use tool mail_send with {"to": "ada@x"}'))).json();
 * expect(paused.status).toBe('awaiting_input');
 * const reply = await approvals.approveAll(app, paused);
 * expect(reply.status).toBe('completed');
 */
export const approvals = {
  /**
   * Approves every call the run waits for; resolves with the reply the run gives then.
   * @example
   * const reply = await approvals.approveAll(app, paused);
   */
  approveAll: (app: RequestableActor, reply: ChatReply, options?: AnswerOptions): Promise<ChatReply> =>
    answerApprovals(app, reply, () => true, options),
  /**
   * Denies every call the run waits for, telling the model `reason`; resolves with the reply the run gives then.
   * @example
   * const reply = await approvals.denyAll(app, paused, 'not today');
   */
  denyAll: (app: RequestableActor, reply: ChatReply, reason?: string, options?: AnswerOptions): Promise<ChatReply> =>
    answerApprovals(app, reply, () => denial(reason), options),
  /**
   * Denies the first call the run waits for (with `reason`) and approves the others.
   * @example
   * const reply = await approvals.denyNext(app, paused, 'wrong recipient');
   */
  denyNext: (app: RequestableActor, reply: ChatReply, reason?: string, options?: AnswerOptions): Promise<ChatReply> =>
    answerApprovals(app, reply, (_, index) => (index === 0 ? denial(reason) : true), options),
  /**
   * Answers each call the run waits for as `decide` says: `true`, `false` or `{ approved, reason }`.
   * @example
   * const reply = await approvals.decide(app, paused, (call) => call.tool !== 'bank_pay');
   */
  decide: answerApprovals,
};

/** A denial, with its reason when there is one. */
function denial(reason: string | undefined): ApprovalDecision {
  return reason === undefined ? false : { approved: false, reason };
}
