import { attachmentKind, attachmentText } from '../invoke/attachment-kind.js';
import type { ChatRequest } from '../invoke/chat-request.js';

/** An attachment as the model takes it: an image by URL (a `data:` URL when it came as data), or a file's text. */
export type ModelAttachment =
  | { readonly kind: 'image'; readonly name: string; readonly mimeType: string; readonly url: string }
  | { readonly kind: 'text'; readonly name: string; readonly mimeType: string; readonly text: string };

/**
 * The attachments of a validated chat request as the model takes them. The request schema has
 * already refused every type the model cannot take and text by URL.
 */
export function modelAttachments(attachments: ChatRequest['attachments']): ModelAttachment[] {
  return (attachments ?? []).map(({ name, mime_type: mimeType, url, data }) =>
    attachmentKind(mimeType) === 'image'
      ? { kind: 'image', name, mimeType, url: url ?? `data:${mimeType};base64,${data}` }
      : { kind: 'text', name, mimeType, text: attachmentText(data ?? '') },
  );
}

/** The text part that carries a text attachment to the model. */
export const attachedFileText = (attachment: Extract<ModelAttachment, { kind: 'text' }>) =>
  `Attached file ${attachment.name}:\n${attachment.text}`;
