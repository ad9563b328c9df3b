import { describe, expect, it } from 'vitest';
import { convertAnswer } from './answer-value.js';
import type { TemplateQuestion } from './template-config.js';

const question = (extra: Partial<TemplateQuestion>): TemplateQuestion => ({ name: 'q', type: 'str', secret: false, ...extra });

describe('convertAnswer', () => {
  it('converts integers and refuses anything else', () => {
    const int = question({ type: 'int' });
    expect(convertAnswer(int, ' 42 ')).toEqual({ ok: true, value: 42 });
    expect(convertAnswer(int, '-3')).toEqual({ ok: true, value: -3 });
    expect(convertAnswer(int, 7)).toEqual({ ok: true, value: 7 });
    for (const bad of ['4.5', '', 'ten', '1e3', '99999999999999999999', 1.5]) {
      expect(convertAnswer(int, bad)).toMatchObject({ ok: false, reason: expect.stringContaining('expected an integer') });
    }
  });

  it('converts the usual words for booleans', () => {
    const bool = question({ type: 'bool' });
    for (const yes of ['true', 'YES', 'y', 'on', '1', true]) expect(convertAnswer(bool, yes)).toEqual({ ok: true, value: true });
    for (const no of ['false', 'No', 'n', 'off', '0', false]) expect(convertAnswer(bool, no)).toEqual({ ok: true, value: false });
    expect(convertAnswer(bool, 'maybe')).toMatchObject({ ok: false, reason: expect.stringContaining('expected true or false') });
  });

  it('accepts a choice by value or label and refuses others, listing the allowed values', () => {
    const choice = question({ type: 'choice', choices: [{ label: 'Weather', value: 'weather' }, { label: 'Finance', value: 'finance' }] });
    expect(convertAnswer(choice, 'weather')).toEqual({ ok: true, value: 'weather' });
    expect(convertAnswer(choice, 'Finance')).toEqual({ ok: true, value: 'finance' });
    expect(convertAnswer(choice, 'sports')).toEqual({ ok: false, reason: "'sports' is not one of: weather, finance" });
  });

  it('checks choices on typed questions after conversion', () => {
    const sizes = question({ type: 'int', choices: [{ label: '1', value: 1 }, { label: '3', value: 3 }] });
    expect(convertAnswer(sizes, '3')).toEqual({ ok: true, value: 3 });
    expect(convertAnswer(sizes, '2')).toMatchObject({ ok: false });
  });

  it('applies the validator and reports its message', () => {
    const name = question({ validator: { regex: /^[a-z]+$/u, message: 'lower-case letters only' } });
    expect(convertAnswer(name, 'weather')).toEqual({ ok: true, value: 'weather' });
    expect(convertAnswer(name, 'Weather')).toEqual({ ok: false, reason: 'lower-case letters only' });
  });

  it('refuses a non-text value for a string question', () => {
    expect(convertAnswer(question({}), true)).toMatchObject({ ok: false });
  });
});
