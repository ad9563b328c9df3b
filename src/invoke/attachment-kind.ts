/** The image types an OpenAI-compatible model takes as image parts. */
export const IMAGE_MIME_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** The `application/*` types read as text, besides every `text/*` type and the `+json` and `+xml` suffixes. */
const TEXT_APPLICATION_MIME_TYPES: readonly string[] = [
  'application/json',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/typescript',
  'application/sql',
  'application/csv',
];

const escapeForPattern = (type: string) => type.replaceAll('.', '\\.').replaceAll('+', '\\+');

/** The media types sent as images, as a JSON Schema pattern (lowercase; the actor compares case-insensitively). */
export const IMAGE_MIME_TYPE_PATTERN = `^(${IMAGE_MIME_TYPES.map(escapeForPattern).join('|')})$`;

/** The media types sent as text, as a JSON Schema pattern (lowercase; the actor compares case-insensitively). */
const TEXT_MIME_TYPE_PATTERN = `^(text/[\\w.+-]+|${TEXT_APPLICATION_MIME_TYPES.map(escapeForPattern).join('|')}|[\\w.-]+/[\\w.-]+\\+(json|xml))$`;

/** Every media type the model takes, as a JSON Schema pattern. */
export const SUPPORTED_MIME_TYPE_PATTERN = `${IMAGE_MIME_TYPE_PATTERN}|${TEXT_MIME_TYPE_PATTERN}`;

const isImage = new RegExp(IMAGE_MIME_TYPE_PATTERN, 'i');
const isText = new RegExp(TEXT_MIME_TYPE_PATTERN, 'i');

/** How the model takes an attachment: as an image part, as text, or not at all. */
export type AttachmentKind = 'image' | 'text' | 'unsupported';

/** The kind of an attachment by its media type (case-insensitive). */
export function attachmentKind(mimeType: string): AttachmentKind {
  if (isImage.test(mimeType)) return 'image';
  if (isText.test(mimeType)) return 'text';
  return 'unsupported';
}

const utf8 = new TextDecoder('utf-8');

/** The text of a base64 attachment, read as UTF-8 (bytes that are not UTF-8 become U+FFFD). */
export function attachmentText(base64: string): string {
  return utf8.decode(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)));
}
