/** The checks a `validator` of template.yml can ask for: a pattern, or a well-known format. */
export type AnswerValidator =
  | { readonly kind: 'regex'; readonly regex: RegExp; readonly message: string; readonly allowEmpty: boolean }
  | { readonly kind: 'format'; readonly format: AnswerFormat; readonly message: string; readonly allowEmpty: boolean };

/** The named formats a validator may require (`validator: { format: url }`). */
export type AnswerFormat = 'url';

/** Every {@link AnswerFormat}, for template.yml checks and messages. */
export const ANSWER_FORMATS: readonly AnswerFormat[] = ['url'];

const FORMAT_MESSAGES: Readonly<Record<AnswerFormat, string>> = {
  url: 'an absolute http:// or https:// URL without user:password@, such as http://127.0.0.1:11434/v1',
};

/**
 * The message shown when an answer does not have a format, unless the template gives its own.
 * @param format the format the validator asks for.
 */
export function formatMessage(format: AnswerFormat): string {
  return FORMAT_MESSAGES[format];
}

/**
 * Whether an answer passes its question's validator; an empty answer passes when the validator
 * allows it (`allow_empty: true`).
 * @param validator the question's validator.
 * @param value the answer, already converted to text.
 * @example
 * passesValidator({ kind: 'format', format: 'url', message: 'a URL', allowEmpty: true }, ''); // true
 */
export function passesValidator(validator: AnswerValidator, value: string): boolean {
  if (value === '' && validator.allowEmpty) return true;
  if (validator.kind === 'regex') return validator.regex.test(value);
  return isHttpUrl(value);
}

/** An absolute http(s) URL with a host, no user name or password and no spaces, as the template's settings schema requires it. */
function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^/?#\s@]+([/?#]\S*)?$/.test(value) && URL.canParse(value);
}
