import * as v from 'valibot';
import type { FieldProblem } from '../core/actor-error.js';
import { jsonPointer, pointerSegments } from '../core/json-pointer.js';
import { fieldProblems, validationFailed } from '../core/validation-problem.js';
import type { Mutable } from '../core/mutable.js';
import { ApprovalAnswer as ApprovalAnswerSchema, ChatRequest } from './chat-request.js';
import type { RunApprovalAnswer } from './turn-runs.js';
import type { UiChatRequest } from './ui-chat-request.js';

/** The user an AI SDK chat turn is recorded under when its body names none. */
export const UI_CHAT_USER = 'ai-sdk';

const UserPart = v.variant(
  'type',
  [
    v.looseObject({ type: v.literal('text'), text: v.string() }),
    v.looseObject({
      type: v.literal('file'),
      mediaType: v.string(),
      filename: v.optional(v.string()),
      url: v.string(),
    }),
  ],
  'must be a text or a file part: the actor takes no other part from the user',
);

/** Which field of a file part an attachment's field came from. */
const FILE_PART_FIELDS: Readonly<Record<string, string>> = {
  name: 'filename',
  mime_type: 'mediaType',
  url: 'url',
  data: 'url',
};

const DATA_URL = /^data:([^,]*),(.*)$/is;

function base64OfBytes(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

/**
 * Where a file part's bytes are: `data` (base64) from a `data:` URL whose own media type, if it
 * names one, is the part's `mediaType` (a `data:text/html` URL is not an image/png); `url` for an
 * http(s) URL; undefined for anything else (a `blob:` URL never leaves the browser).
 */
function attachmentSource(url: string, mediaType: string): { data: string } | { url: string } | undefined {
  if (/^https?:\/\//i.test(url)) return { url };
  const dataUrl = DATA_URL.exec(url);
  if (dataUrl === null) return undefined;
  const [, meta = '', payload = ''] = dataUrl;
  const ownType = meta.split(';')[0]!.trim();
  if (ownType !== '' && ownType.toLowerCase() !== mediaType.toLowerCase()) return undefined;
  if (/;base64$/i.test(meta)) return { data: payload };
  try {
    return { data: base64OfBytes(new TextEncoder().encode(decodeURIComponent(payload))) };
  } catch {
    return undefined;
  }
}

/**
 * The chat request of an AI SDK chat body: the last message must be the user's; its text parts,
 * joined by a line break, are the message, its file parts the attachments (a `data:` URL as
 * `data`, an http(s) URL as `url`); the chat `id` is the session; the user is `user_identifier`
 * or {@link UI_CHAT_USER}; it streams unless `stream` is `false`. The chat request's own rules
 * then apply, and a 422 names the field of the AI SDK body (`/messages/2/parts/0/mediaType`).
 * @param body the validated AI SDK body
 */
export function chatRequestOfUiChat(body: UiChatRequest): ChatRequest {
  const last = body.messages.length - 1;
  const at = (...segments: (string | number)[]) => jsonPointer('messages', last, ...segments);
  const message = body.messages[last]!;
  if (message.role !== 'user')
    throw validationFailed([
      { pointer: at('role'), detail: 'must be "user": the actor answers the last message, which must be the user\'s' },
    ]);
  const parts = v.safeParse(v.array(UserPart), message.parts);
  if (!parts.success)
    throw validationFailed(
      fieldProblems(parts.issues).map((problem) => ({ ...problem, pointer: at('parts') + problem.pointer })),
    );

  const texts: string[] = [];
  const fileParts: number[] = [];
  const attachments: Record<string, unknown>[] = [];
  const problems: FieldProblem[] = [];
  parts.output.forEach((part, index) => {
    if (part.type === 'text') {
      texts.push(part.text);
      return;
    }
    const source = attachmentSource(part.url, part.mediaType);
    if (source === undefined)
      problems.push({
        pointer: at('parts', index, 'url'),
        detail: `must be an http(s) URL or a data: URL of the part's mediaType (${part.mediaType})`,
      });
    fileParts.push(index);
    attachments.push({ name: part.filename ?? `file-${fileParts.length}`, mime_type: part.mediaType, ...source });
  });
  const text = texts.join('\n');
  if (text === '') problems.push({ pointer: at('parts'), detail: 'needs a text part with some text' });
  if (problems.length > 0) throw validationFailed(problems);

  const result = v.safeParse(ChatRequest, {
    user_identifier: body.user_identifier ?? UI_CHAT_USER,
    session_id: body.id,
    message: text,
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    stream: body.stream ?? true,
  });
  if (result.success) return result.output;
  const uiPointer = (pointer: string): string => {
    const [field, index, attachmentField] = pointerSegments(pointer);
    if (field === 'session_id') return '/id';
    if (field === 'message' || (field === 'attachments' && index === undefined)) return at('parts');
    if (field !== 'attachments') return pointer;
    const part = fileParts[Number(index)]!;
    return attachmentField === undefined
      ? at('parts', part)
      : at('parts', part, FILE_PART_FIELDS[attachmentField] ?? attachmentField);
  };
  throw validationFailed(
    fieldProblems(result.issues).map((problem) => ({ ...problem, pointer: uiPointer(problem.pointer) })),
  );
}

/** A tool part of the AI SDK's assistant message answered by `addToolApprovalResponse` (a `dynamic-tool` or `tool-<name>` part). */
const ApprovalRespondedPart = v.looseObject({
  type: v.string(),
  toolCallId: v.string(),
  state: v.literal('approval-responded'),
  input: v.optional(v.unknown()),
  // The answer's own rules (`ApprovalAnswer`), the AI SDK's other approval fields let through.
  approval: v.looseObject(ApprovalAnswerSchema.entries),
});

/**
 * The answers an AI SDK chat body carries when `addToolApprovalResponse` (with
 * `sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses`) sent it: the last
 * message is the assistant's, and its tool parts in state `approval-responded` are the answers,
 * each with the arguments the person saw (`input`). Undefined for any other body (a new user
 * message). A malformed answer is a 422 naming its field (`/messages/1/parts/2/approval/approved`).
 * @param body the validated AI SDK body
 */
export function approvalsOfUiChat(body: UiChatRequest): RunApprovalAnswer[] | undefined {
  const last = body.messages.length - 1;
  const message = body.messages[last]!;
  if (message.role !== 'assistant') return undefined;
  const answers: RunApprovalAnswer[] = [];
  const problems: FieldProblem[] = [];
  message.parts.forEach((part, index) => {
    if ((part as { state?: unknown }).state !== 'approval-responded') return;
    const parsed = v.safeParse(ApprovalRespondedPart, part);
    if (!parsed.success) {
      for (const problem of fieldProblems(parsed.issues))
        problems.push({ ...problem, pointer: jsonPointer('messages', last, 'parts', index) + problem.pointer });
      return;
    }
    const { approval, input } = parsed.output;
    const answer: Mutable<RunApprovalAnswer> = { id: approval.id, approved: approval.approved, arguments: input ?? {} };
    if (approval.reason !== undefined) answer.reason = approval.reason;
    answers.push(answer);
  });
  if (problems.length > 0) throw validationFailed(problems);
  return answers.length > 0 ? answers : undefined;
}
