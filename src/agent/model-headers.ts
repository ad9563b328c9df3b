/** Extra request headers sent on every call to the model server, by name. */
export type ModelHeaders = Readonly<Record<string, string>>;

/**
 * Header names `LLM_HEADERS` may not set, lower-cased: the key goes in `LLM_API_KEY` (sent as
 * `Authorization: Bearer …`), and the rest belong to the HTTP connection or the request body,
 * which the client sets itself.
 */
export const REFUSED_MODEL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'accept',
  'accept-encoding',
];

/** An HTTP field name (RFC 9110 token). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, spaces and tabs, as an HTTP field value may hold (no CR, LF or NUL). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const EXAMPLE = '{"x-portkey-provider": "openai"}';

const JSON_SPACE = '[ \\t\\n\\r]*';
/** A refused name in any case, as a pattern without flags can say it: `host` → `[Hh][Oo][Ss][Tt]`. */
const anyCase = (name: string) => name.replace(/[a-z]/g, (letter) => `[${letter.toUpperCase()}${letter}]`);
/** A name that is none of `REFUSED_MODEL_HEADERS`: a negative lookahead before the field name. */
const NOT_REFUSED = `(?!(?:${REFUSED_MODEL_HEADERS.map(anyCase).join('|')})")`;
const MEMBER = `"${NOT_REFUSED}[!#$%&'*+.^_\`|~0-9A-Za-z-]+"${JSON_SPACE}:${JSON_SPACE}"[ !#-\\[\\]-~]*[!#-\\[\\]-~][ !#-\\[\\]-~]*"`;

/**
 * The `llm_headers` setting's text as a JSON Schema `pattern` (ECMA-262) can say it: empty, or a
 * JSON object of HTTP field names, none of them one it keeps for the client (`Host`, in any case),
 * to non-blank printable-ASCII string values without escapes. It admits no text `parseModelHeaders`
 * refuses but a name given twice in two cases (`"X-A"` and `"x-a"`), which a regular expression
 * without flags cannot tell.
 */
export const MODEL_HEADERS_PATTERN = `^(?:${JSON_SPACE}|${JSON_SPACE}\\{${JSON_SPACE}(?:${MEMBER}(?:${JSON_SPACE},${JSON_SPACE}${MEMBER})*)?${JSON_SPACE}\\}${JSON_SPACE})$`;

/** What a JSON value is, in words: `a list`, `an object`, `null`, `a number`… */
const kindOf = (value: unknown) =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'a list'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`;

/**
 * Reads the extra model-server headers from a JSON object of header names to string values
 * (the `LLM_HEADERS` variable or the `llm_headers` setting); empty means none. A mistake
 * throws one line naming the header at fault, never a header's value (values may be keys).
 * @param raw the JSON text, or undefined
 * @example
 * parseModelHeaders('{"x-portkey-provider": "openai", "x-portkey-custom-host": "http://127.0.0.1:4000/v1"}');
 */
export function parseModelHeaders(raw: string | undefined): ModelHeaders {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    // The parser's message quotes the text, which may hold a key.
    throw new Error(`must be a JSON object of header names to string values, e.g. ${EXAMPLE}; it is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`must be a JSON object of header names to string values, e.g. ${EXAMPLE}; it is ${kindOf(value)}`);
  }
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, headerValue] of Object.entries(value)) {
    const shownName = JSON.stringify(name);
    if (!FIELD_NAME.test(name))
      throw new Error(
        `has the header name ${shownName}, which is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`,
      );
    const lower = name.toLowerCase();
    if (REFUSED_MODEL_HEADERS.includes(lower)) {
      throw new Error(
        lower === 'authorization'
          ? `may not set ${name}: the model server's key goes in LLM_API_KEY (sent as "Authorization: Bearer <key>"); a gateway's own key goes in its own header`
          : `may not set ${name}: the HTTP client sets it`,
      );
    }
    if (seen.has(lower)) throw new Error(`names the header ${shownName} twice (header names ignore case)`);
    seen.add(lower);
    if (typeof headerValue !== 'string')
      throw new Error(
        `gives the header ${shownName} ${kindOf(headerValue)}; values must be strings (a JSON value goes in as text)`,
      );
    if (headerValue.trim() === '') throw new Error(`gives the header ${shownName} an empty value`);
    if (!FIELD_VALUE.test(headerValue))
      throw new Error(`gives the header ${shownName} a value with a line break or a control character`);
    headers[name] = headerValue;
  }
  return headers;
}
