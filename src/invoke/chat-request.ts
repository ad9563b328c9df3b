import * as v from 'valibot';
import { DEFAULT_TENANT, headerTenant, parseTenantId, TenantId } from '../core/tenant-id.js';
import {
  ATTACHMENT_URL_PATTERN,
  attachmentKind,
  attachmentUrlRefusal,
  IMAGE_MIME_TYPE_PATTERN,
  IMAGE_MIME_TYPES,
  SUPPORTED_MIME_TYPE_PATTERN,
} from './attachment-kind.js';
import { ChatMetadata } from './chat-metadata.js';
import { storableText } from './storable-text.js';

/** Session ids follow the rule of tenant ids: 1–128 characters of letters, digits and `._:-`. */
export const SessionId = TenantId;

/** The most characters a chat request's `message` holds. */
export const MAX_MESSAGE_CHARACTERS = 32_768;

/** The most attachments a chat request carries. */
export const MAX_ATTACHMENTS = 10;

/** An attachment's name: 1–256 characters a store can keep. */
export const AttachmentName = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(256, 'must be at most 256 characters'),
  storableText,
);

/** An attachment's media type: one the model takes (an image or text), else refused with 422. */
export const AttachmentMimeType = v.pipe(
  v.string(),
  v.regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as image/png'),
  v.metadata({ pattern: SUPPORTED_MIME_TYPE_PATTERN }),
  v.description(
    `An image (${IMAGE_MIME_TYPES.join(', ')}), by url or data, reaches the model as an image; text (text/*, application/json, application/xml, application/yaml, */*+json, */*+xml…), by data only, as text; any other type is refused with 422`,
  ),
);

/** The URL of an image attachment, which the model server fetches or reads. */
export const AttachmentUrl = v.pipe(
  v.string(),
  v.maxLength(4096, 'must be at most 4096 characters'),
  v.check(
    (url) => attachmentUrlRefusal(url) === undefined,
    (issue) => attachmentUrlRefusal(issue.input as string)!,
  ),
  v.metadata({ pattern: ATTACHMENT_URL_PATTERN }),
  v.description(
    'An https:, http: or data:image/ URL the model server fetches or reads: a host name (no xn-- label), an IPv4 address or [::1], a port up to 65535, printable ASCII after the host; a link-local or cloud metadata host (169.254.0.0/16, metadata.google.internal) is refused with 422',
  ),
);

/** An attachment's bytes, in base64. */
export const AttachmentData = v.pipe(v.string(), v.base64('must be base64'));

const Attachment = v.pipe(
  v.strictObject({
    name: AttachmentName,
    mime_type: AttachmentMimeType,
    url: v.optional(AttachmentUrl),
    data: v.optional(AttachmentData),
    size: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(0, 'must not be negative'))),
  }),
  v.check(
    (attachment) => (attachment.url === undefined) !== (attachment.data === undefined),
    'needs exactly one of url or data',
  ),
  v.forward(
    v.check(
      (attachment) => attachmentKind(attachment.mime_type) !== 'unsupported',
      (issue) =>
        `${(issue.input as { mime_type: string }).mime_type} is a type the model cannot take; send an image (${IMAGE_MIME_TYPES.join(', ')}) or text`,
    ),
    ['mime_type'],
  ),
  v.forward(
    v.check(
      (attachment) => attachment.url === undefined || attachmentKind(attachment.mime_type) !== 'text',
      'a text attachment must come as data: the actor does not fetch URLs',
    ),
    ['url'],
  ),
  // Exactly one of url and data (each branch forbids the other), and a url only for an image.
  v.metadata({
    oneOf: [
      {
        required: ['url'],
        not: { required: ['data'], properties: { data: { type: 'string' } } },
        properties: { mime_type: { pattern: IMAGE_MIME_TYPE_PATTERN } },
      },
      { required: ['data'], not: { required: ['url'], properties: { url: { type: 'string' } } } },
    ],
  }),
);

/** Where a chat request is posted: the path of the invoke route, and of the turn's log lines. */
export const INVOKE_PATH = '/agent/invoke';

/** Who sends the message: the platform's user id. */
const UserIdentifier = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(256, 'must be at most 256 characters'),
  storableText,
);

/** How the invoke answers and what a dropped client does: the same for a new message and for answers to approvals. */
const RUN_OPTIONS = {
  stream: v.optional(v.boolean()),
  background: v.optional(
    v.pipe(
      v.boolean(),
      v.description('Answer `202 Accepted` at once with the run (`Location: /agent/runs/{id}`); poll or stream it'),
    ),
  ),
  on_disconnect: v.optional(
    v.pipe(
      v.picklist(['continue', 'cancel'], 'must be "continue" or "cancel"'),
      v.description(
        'What a dropped client does to the run: `continue` (it finishes and can be reconnected to) or `cancel`; default `RUN_ON_DISCONNECT`',
      ),
    ),
  ),
};

/** A person's answer to one tool call the run waits for (`approvals`). */
export const ApprovalAnswer = v.strictObject({
  id: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  approved: v.boolean('must be true or false'),
  reason: v.optional(v.pipe(v.string(), v.maxLength(2_000, 'must be at most 2000 characters'), storableText)),
});

/** A validated answer to one approval. */
export type ApprovalAnswer = v.InferOutput<typeof ApprovalAnswer>;

/**
 * The body of `POST /agent/invoke`. Unknown top-level keys are rejected.
 * The JSON Schema in `/openapi.json` is generated from this schema.
 */
export const ChatRequest = v.pipe(
  v.strictObject({
    user_identifier: UserIdentifier,
    session_id: SessionId,
    message: v.pipe(
      v.string(),
      v.minLength(1, 'must not be empty'),
      v.maxLength(MAX_MESSAGE_CHARACTERS, `must be at most ${MAX_MESSAGE_CHARACTERS} characters`),
      storableText,
    ),
    role: v.optional(v.picklist(['user', 'system'], 'must be "user" or "system"'), 'user'),
    metadata: v.optional(ChatMetadata),
    attachments: v.optional(
      v.pipe(v.array(Attachment), v.maxLength(MAX_ATTACHMENTS, `must hold at most ${MAX_ATTACHMENTS} attachments`)),
    ),
    ...RUN_OPTIONS,
  }),
  v.forward(
    v.check(
      (request) => request.role === 'user' || (request.attachments?.length ?? 0) === 0,
      'attachments come with a message of role "user"',
    ),
    ['attachments'],
  ),
  v.metadata({
    not: { required: ['role', 'attachments'], properties: { role: { const: 'system' }, attachments: { minItems: 1 } } },
  }),
  v.title('ChatRequest'),
);

/** A validated chat request. */
export type ChatRequest = v.InferOutput<typeof ChatRequest>;

/**
 * The body of an invoke that answers the tool calls the session's run waits for (its reply said
 * `status: "awaiting_input"`), told apart from a chat request by `approvals` and no `message`:
 * the run goes on, under its own id, once every call is decided.
 */
export const ApprovalsRequest = v.pipe(
  v.strictObject({
    user_identifier: UserIdentifier,
    session_id: SessionId,
    approvals: v.pipe(
      v.array(ApprovalAnswer),
      v.minLength(1, 'must hold at least one answer'),
      v.maxLength(100, 'must hold at most 100 answers'),
    ),
    metadata: v.optional(ChatMetadata),
    ...RUN_OPTIONS,
  }),
  v.title('ApprovalsRequest'),
);

/** Answers to the approvals a run waits for, as an invoke sends them. */
export type ApprovalsRequest = v.InferOutput<typeof ApprovalsRequest>;

/**
 * The tenant of a chat request: `X-Tenant-Id` (set by the platform), else `metadata.tenant_id`,
 * else `default`. A malformed header is a 400 `invalid_header`; a malformed metadata value a 422.
 * @param header the `X-Tenant-Id` header, undefined when absent
 * @param request the validated chat request
 */
export function requestTenant(header: string | undefined, request: Pick<ChatRequest, 'metadata'>): string {
  const fromHeader = headerTenant(header);
  if (fromHeader !== undefined) return fromHeader;
  const fromMetadata = request.metadata?.tenant_id;
  return fromMetadata === undefined ? DEFAULT_TENANT : parseTenantId(fromMetadata, '/metadata/tenant_id');
}
