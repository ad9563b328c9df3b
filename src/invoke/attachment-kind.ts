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
const METADATA_HOSTS: ReadonlySet<string> = new Set(['metadata.google.internal', 'metadata', 'metadata.azure.com']);

/** Whether `hostname` (as `URL` normalises it) is link-local or a cloud metadata service: 169.254.0.0/16, fe80::/10, their IPv4-mapped forms, `fd00:ec2::254`, `metadata.google.internal`. */
function isLinkLocalOrMetadataHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(host) || host.startsWith('169.254.')) return true;
  if (!host.startsWith('[')) return false;
  const address = host.slice(1, -1);
  // `URL` writes an IPv4-mapped address in hex: [::ffff:169.254.169.254] is [::ffff:a9fe:a9fe].
  return /^fe[89ab][0-9a-f]?:/.test(address) || /^::ffff:a9fe:/.test(address) || address === 'fd00:ec2::254';
}

/** The URL schemes an image attachment may come by, as a JSON Schema pattern: `https:`, `http:` or a `data:image/…` URL (any case). */
export const ATTACHMENT_URL_PATTERN = '^([hH][tT][tT][pP][sS]?://|[dD][aA][tT][aA]:[iI][mM][aA][gG][eE]/)';

const forwardableScheme = new RegExp(ATTACHMENT_URL_PATTERN);

/**
 * Why the model server must not be given `url` for an attachment, or undefined when it may: only
 * `https:`, `http:` and `data:image/…` URLs go on (not `file:`, `ftp:`, `javascript:`,
 * `data:text/html`…), and never one whose host is link-local or a cloud metadata service.
 * @param url an absolute URL
 */
export function attachmentUrlRefusal(url: string): string | undefined {
  if (!forwardableScheme.test(url)) return 'must be an https:, http: or data:image/ URL';
  if (/^data:/i.test(url)) return undefined;
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return 'must be an absolute URL';
  }
  if (isLinkLocalOrMetadataHost(hostname))
    return `must not point at a link-local or cloud metadata host (${hostname}): the model server would fetch it`;
  return undefined;
}
