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

/** Host names of cloud metadata services, which answer a fetch with the machine's credentials. */
const METADATA_HOSTS: readonly string[] = ['metadata.google.internal', 'metadata.azure.com', 'metadata'];

/** `text` as a pattern that matches it in any case. */
const caseless = (text: string) =>
  [...text].map((char) => (/[a-z]/.test(char) ? `[${char}${char.toUpperCase()}]` : char.replace('.', '\\.'))).join('');

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';

/**
 * A host `URL` takes as written: an IPv4 address, a host name whose last label starts with a
 * letter (a number there would be read as an IPv4 part) and no `xn--` label (a pattern cannot tell
 * valid punycode from invalid), or `[::1]`; then a port up to 65535.
 */
const HOST_AND_PORT = `(?:${OCTET}(?:\\.${OCTET}){3}|(?:(?![Xx][Nn]--)[A-Za-z0-9-]+\\.)*(?![Xx][Nn]--)[A-Za-z][A-Za-z0-9-]*|\\[::1\\])(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?`;

/** A link-local (169.254.0.0/16) or cloud metadata host, as a lookahead that refuses it. */
const NOT_METADATA_HOST = `(?!169\\.254\\.)(?!(?:${METADATA_HOSTS.map(caseless).join('|')})(?:[:/?#]|$))`;

/** The schemes an attachment URL may have, in any case: `http://` or `https://`, and `data:image/`. */
const WEB_SCHEME = `${caseless('http')}[sS]?://`;
const DATA_IMAGE_SCHEME = caseless('data:image/');

/** An attachment URL without the host refusal: the scheme, host, port and printable ASCII after. */
const urlShape = (hostCheck: string) =>
  `^(?:${WEB_SCHEME}${hostCheck}${HOST_AND_PORT}(?:[/?#][\\x21-\\x7e]*)?|${DATA_IMAGE_SCHEME}[\\x21-\\x7e]*)$`;

/**
 * The URLs an image attachment may come by, as a JSON Schema pattern the actor checks as well: an
 * `https:` or `http:` URL (a host name, an IPv4 address or `[::1]`, a port up to 65535, no
 * user:password@, printable ASCII after the host; never a link-local or cloud metadata host) or a
 * `data:image/…` URL.
 */
export const ATTACHMENT_URL_PATTERN = urlShape(NOT_METADATA_HOST);

const forwardableUrl = new RegExp(ATTACHMENT_URL_PATTERN);
const forwardableScheme = new RegExp(`^(?:${WEB_SCHEME}|${DATA_IMAGE_SCHEME})`);
const anyHostUrl = new RegExp(urlShape(''));

/**
 * Why the model server must not be given `url` for an attachment, or undefined when it may: only
 * `https:`, `http:` and `data:image/…` URLs go on (not `file:`, `ftp:`, `javascript:`,
 * `data:text/html`…), and never one whose host is link-local or a cloud metadata service
 * (`ATTACHMENT_URL_PATTERN`).
 * @param url the attachment's URL
 */
export function attachmentUrlRefusal(url: string): string | undefined {
  if (forwardableUrl.test(url)) return undefined;
  if (!forwardableScheme.test(url)) return 'must be an https:, http: or data:image/ URL';
  if (anyHostUrl.test(url))
    return 'must not point at a link-local or cloud metadata host: the model server would fetch it';
  return 'must be an absolute URL with a host name, an IPv4 address or [::1], a port up to 65535, no user:password@, and printable ASCII (percent-encode the rest)';
}
