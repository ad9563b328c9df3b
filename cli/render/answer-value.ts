import { SECRET_MASK } from '../../src/index.js';
import { passesValidator } from './answer-validator.js';
import type { TemplateQuestion } from './template-config.js';

/** An answer converted to its question's type, or the reason it is not acceptable. */
export type AnswerCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: string };

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'on', '1']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'off', '0']);

/**
 * Converts an answer (text from `--data` or a prompt, or a YAML default) to the question's type
 * and checks it against the question's choices and validator.
 * @param question the question answered.
 * @param raw the answer; strings are converted, other values must already have the right type.
 * @example
 * convertAnswer({ name: 'replicas', type: 'int', secret: false }, '3'); // { ok: true, value: 3 }
 */
export function convertAnswer(question: TemplateQuestion, raw: unknown): AnswerCheck {
  // A reason is printed: the answer to a secret question is never quoted in it.
  const shown = question.secret ? SECRET_MASK : String(raw);
  const converted = convertType(question, raw, shown);
  if (!converted.ok) return converted;
  const { value } = converted;
  if (question.choices && !question.choices.some((choice) => choice.value === value)) {
    const allowed = question.choices.map((choice) => String(choice.value)).join(', ');
    return { ok: false, reason: `'${shown}' is not one of: ${allowed}` };
  }
  if (question.validator && !passesValidator(question.validator, String(value))) {
    return { ok: false, reason: question.validator.message };
  }
  return converted;
}

function convertType(question: TemplateQuestion, raw: unknown, shown: string): AnswerCheck {
  switch (question.type) {
    case 'str':
      return typeof raw === 'string' || typeof raw === 'number'
        ? { ok: true, value: String(raw) }
        : expected('a string', shown);
    case 'int': {
      if (typeof raw === 'number')
        return Number.isSafeInteger(raw) ? { ok: true, value: raw } : expected('an integer', shown);
      if (typeof raw !== 'string' || !/^[+-]?\d+$/.test(raw.trim())) return expected('an integer', shown);
      const value = Number(raw.trim());
      return Number.isSafeInteger(value) ? { ok: true, value } : expected('an integer', shown);
    }
    case 'bool': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      const word = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
      if (TRUE_WORDS.has(word)) return { ok: true, value: true };
      if (FALSE_WORDS.has(word)) return { ok: true, value: false };
      return expected('true or false (also yes/no, y/n, on/off, 1/0)', shown);
    }
    case 'choice': {
      const wanted = String(raw).trim().toLowerCase();
      const match = question.choices?.find(
        (choice) => String(choice.value).toLowerCase() === wanted || choice.label.toLowerCase() === wanted,
      );
      return match ? { ok: true, value: match.value } : { ok: true, value: raw };
    }
  }
}

function expected(what: string, shown: string): AnswerCheck {
  return { ok: false, reason: `expected ${what}, got '${shown}'` };
}
