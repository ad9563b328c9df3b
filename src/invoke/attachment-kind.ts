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

/** How the model takes an attachment: as an image part, as text, or not at all. */
export type AttachmentKind = 'image' | 'text' | 'unsupported';

/** The kind of an attachment by its media type (case-insensitive). */
export function attachmentKind(mimeType: string): AttachmentKind {
  const type = mimeType.toLowerCase();
  if (IMAGE_MIME_TYPES.includes(type)) return 'image';
  if (type.startsWith('text/') || TEXT_APPLICATION_MIME_TYPES.includes(type) || type.endsWith('+json') || type.endsWith('+xml')) return 'text';
  return 'unsupported';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The UTF-8 text of a base64 attachment, or undefined when its bytes are not UTF-8. */
export function attachmentText(base64: string): string | undefined {
  try {
    return utf8.decode(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
