import * as v from 'valibot';
import { objectOnly } from '../../core/read-json-body.js';
import { schemaOf } from '../../route-kit/openapi-parts.js';
import {
  attachmentKind,
  IMAGE_MIME_TYPE_PATTERN,
  IMAGE_MIME_TYPES,
  SUPPORTED_MIME_TYPE_PATTERN,
} from '../../invoke/attachment-kind.js';
import {
  AttachmentData,
  AttachmentMimeType,
  AttachmentName,
  AttachmentUrl,
  MAX_ATTACHMENTS,
  MAX_MESSAGE_CHARACTERS,
  SessionId,
} from '../../invoke/chat-request.js';
import { storableText } from '../../invoke/storable-text.js';

/** What a data part is for; any other use of one is ContentTypeNotSupported. */
const DATA_PART_RULE =
  'a data part answers the approvals of a task that waits for input (the message names it in taskId)';

/** A JSON object (A2A's `Struct`): what `metadata` and a data part carry. */
const JsonObject = objectOnly(v.record(v.string(), v.unknown()));

/** The content fields of a part (A2A 1.0 `Part.content`, a oneof): exactly one is present. */
const CONTENT_FIELDS = ['text', 'raw', 'url', 'data'] as const;

/** A text part's text: the chat request's `message` holds it. */
const Text = v.pipe(
  v.string(),
  v.maxLength(MAX_MESSAGE_CHARACTERS, `must be at most ${MAX_MESSAGE_CHARACTERS} characters`),
  storableText,
);

/** The part that carries `field`, and none of the other content fields. */
const partOf = (field: (typeof CONTENT_FIELDS)[number], extra: Record<string, unknown> = {}) => ({
  required: [field, ...Object.keys(extra)],
  properties: {
    ...Object.fromEntries(CONTENT_FIELDS.filter((other) => other !== field).map((other) => [other, false])),
    ...extra,
  },
});

/**
 * One part of a message: text; a file by `url` (an image, as the chat request's attachments take
 * it) or by `raw` bytes (base64, an image or text), each with its `mediaType`; or `data`, which
 * only answers approvals.
 */
const Part = v.pipe(
  objectOnly(
    v.looseObject({
      text: v.optional(Text),
      raw: v.optional(AttachmentData),
      url: v.optional(AttachmentUrl),
      data: v.optional(JsonObject),
      mediaType: v.optional(v.string()),
      filename: v.optional(v.union([v.literal(''), AttachmentName])),
      metadata: v.optional(JsonObject),
    }),
  ),
  v.check(
    (part) => CONTENT_FIELDS.filter((field) => part[field] !== undefined).length === 1,
    'needs exactly one of text, raw, url or data',
  ),
  v.forward(
    v.check(
      (part) =>
        (part.url === undefined && part.raw === undefined) ||
        (part.mediaType !== undefined && v.is(AttachmentMimeType, part.mediaType)),
      'a file part needs the mediaType of its bytes, such as image/png',
    ),
    ['mediaType'],
  ),
  v.forward(
    v.check(
      (part) => part.url === undefined || attachmentKind(part.mediaType ?? '') === 'image',
      `a file by url must be an image (${IMAGE_MIME_TYPES.join(', ')}); send text as raw bytes`,
    ),
    ['mediaType'],
  ),
  v.forward(
    v.check(
      (part) => part.raw === undefined || attachmentKind(part.mediaType ?? '') !== 'unsupported',
      (issue) =>
        `${(issue.input as { mediaType: string }).mediaType} is a type the model cannot take; send an image (${IMAGE_MIME_TYPES.join(', ')}) or text`,
    ),
    ['mediaType'],
  ),
  v.metadata({
    oneOf: [
      partOf('text'),
      partOf('url', { mediaType: { type: 'string', pattern: IMAGE_MIME_TYPE_PATTERN } }),
      partOf('raw', { mediaType: { type: 'string', pattern: SUPPORTED_MIME_TYPE_PATTERN } }),
      partOf('data'),
    ],
  }),
);

/** A task id as a message names it: empty (a new task), or an id that is not blank. */
const TaskId = v.union([
  v.literal(''),
  v.pipe(
    v.string(),
    v.check((id) => id.trim() !== '', 'must not be blank'),
    // What `trim()` does not remove: JSON Schema's `\s` with the byte-order mark it leaves out.
    v.metadata({ pattern: '[^\\s\\uFEFF]' }),
  ),
]);

/**
 * The message a client sends (A2A 1.0 `Message`, role `ROLE_USER`). Without a `taskId` it is a new
 * turn: at least one text part that is not empty, no data part; its text parts, joined by line
 * breaks, are the chat request's `message` and its file parts its attachments, which that request
 * limits (checked when it is made: `MAX_MESSAGE_CHARACTERS`, `MAX_ATTACHMENTS`). With
 * a `taskId`, it continues that task: a task waiting for input takes the decisions as a data part.
 */
const Message = v.pipe(
  v.looseObject({
    messageId: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
    role: v.picklist(['ROLE_USER'], 'must be "ROLE_USER": the client speaks as the user'),
    parts: v.pipe(v.array(Part), v.minLength(1, 'needs at least one part')),
    contextId: v.optional(v.union([v.literal(''), SessionId])),
    taskId: v.optional(TaskId),
    metadata: v.optional(JsonObject),
    extensions: v.optional(v.array(v.string())),
    referenceTaskIds: v.optional(v.array(v.string())),
  }),
  v.forward(
    v.check(
      (message) => Boolean(message.taskId) || !message.parts.some((part) => part.data !== undefined),
      DATA_PART_RULE,
    ),
    ['parts'],
  ),
  v.forward(
    v.check(
      (message) => Boolean(message.taskId) || message.parts.some((part) => Boolean(part.text)),
      'a new message needs a text part that is not empty',
    ),
    ['parts'],
  ),
  v.description(
    `A new message (no taskId) has a text part that is not empty, at most ${MAX_ATTACHMENTS} file parts and no data part; its text parts, joined by line breaks, are at most ${MAX_MESSAGE_CHARACTERS} characters with no unpaired surrogate. A message to a task (taskId) continues it; a task that waits for input takes the decisions as a data part \`{approved, reason?}\` or \`{approvals: [{id, approved, reason?}]}\``,
  ),
  v.metadata({
    anyOf: [
      { required: ['taskId'], properties: { taskId: { minLength: 1 } } },
      {
        properties: {
          parts: {
            items: { properties: { data: false } },
            // The text's whole schema again, not `minLength` alone: Schemathesis filters most of
            // what it draws for a `contains` that only narrows what `items` says (a failed health check).
            contains: { required: ['text'], properties: { text: { ...schemaOf(Text), minLength: 1 } } },
          },
        },
      },
    ],
  }),
);

/**
 * The body of A2A's SendMessage and SendStreamingMessage (the HTTP+JSON body, the JSON-RPC
 * `params`), checked before the SDK reads it: its decoder takes any JSON and makes each field the
 * type it wants (a number for a string, an array for an object), so a wrong type would otherwise
 * pass as something the client did not send. `/openapi.json` documents this schema.
 */
export const SendMessageBody = v.looseObject({
  message: Message,
  configuration: v.optional(
    objectOnly(
      v.looseObject({
        acceptedOutputModes: v.optional(v.array(v.string())),
        historyLength: v.optional(
          v.pipe(v.number(), v.integer('must be an integer'), v.minValue(0, 'must not be negative')),
        ),
        returnImmediately: v.optional(v.boolean()),
        taskPushNotificationConfig: v.optional(JsonObject),
      }),
    ),
  ),
  metadata: v.optional(JsonObject),
  tenant: v.optional(v.string()),
});

/**
 * Why A2A refuses a SendMessage body, or undefined when it is well formed: `unsupported` (a part
 * of a kind or media type the actor does not take: ContentTypeNotSupported) or `malformed`
 * (RequestMalformed), with what to fix.
 * @param body the parsed JSON body (HTTP+JSON) or `params` (JSON-RPC)
 */
export function sendMessageRefusal(body: unknown): { kind: 'unsupported' | 'malformed'; message: string } | undefined {
  const parsed = v.safeParse(SendMessageBody, body);
  if (parsed.success) return undefined;
  const issue = parsed.issues[0];
  const path = issue.path?.map((item) => String(item.key)) ?? [];
  const where = path.join('.');
  const unsupported = path.at(-1) === 'mediaType' || path.at(-1) === 'data' || issue.message === DATA_PART_RULE;
  return {
    kind: unsupported ? 'unsupported' : 'malformed',
    message: where === '' ? issue.message : `${where}: ${issue.message}`,
  };
}
