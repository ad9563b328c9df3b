import { describe, expect, it } from 'vitest';
import { convertAnswer } from './answer-value.js';
import type { TemplateQuestion } from './template-config.js';

const question = (extra: Partial<TemplateQuestion>): TemplateQuestion => ({
  name: 'q',
  type: 'str',
  secret: false,
  ...extra,
});

describe('convertAnswer', () => {
  it('converts integers and refuses anything else', () => {
    const int = question({ type: 'int' });
    expect(convertAnswer(int, ' 42 ')).toEqual({ ok: true, value: 42 });
    expect(convertAnswer(int, '-3')).toEqual({ ok: true, value: -3 });
    expect(convertAnswer(int, 7)).toEqual({ ok: true, value: 7 });
    for (const bad of ['4.5', '', 'ten', '1e3', '99999999999999999999', 1.5]) {
      expect(convertAnswer(int, bad)).toMatchObject({
        ok: false,
        reason: expect.stringContaining('expected an integer'),
      });
    }
  });

  it('converts the usual words for booleans', () => {
    const bool = question({ type: 'bool' });
    for (const yes of ['true', 'YES', 'y', 'on', '1', true])
      expect(convertAnswer(bool, yes)).toEqual({ ok: true, value: true });
    for (const no of ['false', 'No', 'n', 'off', '0', false])
      expect(convertAnswer(bool, no)).toEqual({ ok: true, value: false });
    expect(convertAnswer(bool, 'maybe')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('expected true or false'),
    });
  });

  it('accepts a choice by value or label and refuses others, listing the allowed values', () => {
    const choice = question({
      type: 'choice',
      choices: [
        { label: 'Weather', value: 'weather' },
        { label: 'Finance', value: 'finance' },
      ],
    });
    expect(convertAnswer(choice, 'weather')).toEqual({ ok: true, value: 'weather' });
    expect(convertAnswer(choice, 'Finance')).toEqual({ ok: true, value: 'finance' });
    expect(convertAnswer(choice, 'sports')).toEqual({ ok: false, reason: "'sports' is not one of: weather, finance" });
  });

  it('accepts a choice in any case and returns the value as the template spells it', () => {
    const choice = question({
      type: 'choice',
      choices: [
        { label: 'none', value: 'none' },
        { label: 'n8n', value: 'n8n' },
      ],
    });
    expect(convertAnswer(choice, 'N8N')).toEqual({ ok: true, value: 'n8n' });
    expect(convertAnswer(choice, ' None ')).toEqual({ ok: true, value: 'none' });
    expect(convertAnswer(choice, 'zapier')).toMatchObject({ ok: false });
  });

  it('checks choices on typed questions after conversion', () => {
    const sizes = question({
      type: 'int',
      choices: [
        { label: '1', value: 1 },
        { label: '3', value: 3 },
      ],
    });
    expect(convertAnswer(sizes, '3')).toEqual({ ok: true, value: 3 });
    expect(convertAnswer(sizes, '2')).toMatchObject({ ok: false });
  });

  it('applies the validator and reports its message', () => {
    const name = question({
      validator: { kind: 'regex', regex: /^[a-z]+$/u, message: 'lower-case letters only', allowEmpty: false },
    });
    expect(convertAnswer(name, 'weather')).toEqual({ ok: true, value: 'weather' });
    expect(convertAnswer(name, 'Weather')).toEqual({ ok: false, reason: 'lower-case letters only' });
    expect(convertAnswer(name, '')).toEqual({ ok: false, reason: 'lower-case letters only' });
  });

  it('checks a URL format: absolute http(s) with a host, or empty when allowed', () => {
    const url = question({ validator: { kind: 'format', format: 'url', message: 'a URL', allowEmpty: true } });
    for (const good of [
      '',
      'http://127.0.0.1:11434/v1',
      'https://api.openai.com/v1',
      'http://host:8080/v1?x=1',
      'https://host/v1/@models',
    ]) {
      expect(convertAnswer(url, good), good).toEqual({ ok: true, value: good });
    }
    for (const bad of [
      'not a url',
      'ftp://host/x',
      'localhost:8080',
      '/v1',
      'http://',
      'http:///path',
      ' ',
      'http://host/a b',
      'http://exa mple.com',
      'http://user:pw@host:8080/v1',
    ]) {
      expect(convertAnswer(url, bad), bad).toEqual({ ok: false, reason: 'a URL' });
    }
    const required = question({ validator: { kind: 'format', format: 'url', message: 'a URL', allowEmpty: false } });
    expect(convertAnswer(required, '')).toEqual({ ok: false, reason: 'a URL' });
  });

  it('refuses a non-text value for a string question', () => {
    expect(convertAnswer(question({}), true)).toMatchObject({ ok: false });
  });

  it('never quotes the answer of a secret question in its reason (issue #16 item 4)', () => {
    const secret = 'sk-live-0123456789';
    for (const type of ['int', 'bool'] as const) {
      const check = convertAnswer(question({ type, secret: true }), secret);
      expect(check.ok).toBe(false);
      expect(JSON.stringify(check)).not.toContain(secret);
    }
    const choice = convertAnswer(
      question({ type: 'choice', secret: true, choices: [{ label: 'A', value: 'a' }] }),
      secret,
    );
    expect(choice).toEqual({ ok: false, reason: "'********' is not one of: a" });
    expect(convertAnswer(question({ type: 'int', secret: false }), 'ten')).toMatchObject({
      reason: "expected an integer, got 'ten'",
    });
  });
});
