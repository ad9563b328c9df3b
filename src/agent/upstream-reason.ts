/** Why a model server or gateway refused a call, in its own words. */
export interface UpstreamReason {
  /** Its message, e.g. `Either x-portkey-config or x-portkey-provider header is required`. */
  readonly message: string;
  /** Its error code or type, when it names one, e.g. `invalid_api_key`. */
  readonly code?: string;
}

/** The longest reason kept, in characters. */
export const UPSTREAM_REASON_MAX_LENGTH = 300;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

const codeOf = (value: unknown): string | undefined =>
  textOf(value) ?? (typeof value === 'number' ? String(value) : undefined);

/** The first words of a body that is not JSON (an HTML page gets its tags removed). */
function plainText(body: string): string | undefined {
  const words = body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return words === '' ? undefined : words;
}

/**
 * The reason in an error body of a model server or gateway, or undefined when it gives none.
 * It reads the shapes in use: OpenAI and most gateways (`{"error": {"message", "code", "type"}}`),
 * Ollama and Helicone (`{"error": "…"}`), Portkey (`{"status": "failure", "message": "…"}`),
 * FastAPI and RFC 9457 problems (`detail`, `title`), and a plain-text or HTML body.
 * The message and code are passed through `redact` before they are cut to length, so a cut
 * never leaves part of a secret behind.
 * @param body the parsed JSON body, or the text of a body that is not JSON
 * @param redact removes what must not be shown (keys, header values, credentials in URLs)
 * @example
 * upstreamReason({ status: 'failure', message: 'Either x-portkey-config or x-portkey-provider header is required' });
 */
export function upstreamReason(
  body: unknown,
  redact: (text: string) => string = (text) => text,
): UpstreamReason | undefined {
  const fit = (text: string) => shorten(redact(text));
  if (typeof body === 'string') {
    const message = plainText(body);
    return message === undefined ? undefined : { message: fit(message) };
  }
  if (!isRecord(body)) return undefined;
  const nested = isRecord(body.error) ? body.error : undefined;
  const message =
    textOf(nested?.message) ??
    textOf(body.error) ??
    textOf(body.message) ??
    textOf(body.detail) ??
    textOf(body['html-message']) ??
    textOf(body.title) ??
    (isRecord(nested?.metadata) ? textOf(nested.metadata.raw) : undefined);
  if (message === undefined) return undefined;
  const code = codeOf(nested?.code) ?? codeOf(nested?.type) ?? codeOf(body.code) ?? codeOf(body.type);
  return code === undefined ? { message: fit(message) } : { message: fit(message), code: fit(code) };
}

/** Cuts a text to `UPSTREAM_REASON_MAX_LENGTH` characters, marking the cut with `…`. */
export function shorten(text: string): string {
  return text.length > UPSTREAM_REASON_MAX_LENGTH ? `${text.slice(0, UPSTREAM_REASON_MAX_LENGTH)}…` : text;
}
