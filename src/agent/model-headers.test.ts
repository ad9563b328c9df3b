import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODEL_HEADERS_PATTERN, parseModelHeaders, REFUSED_MODEL_HEADERS } from './model-headers.js';

describe('parseModelHeaders', () => {
  it('reads a JSON object of header names to string values; empty is none', () => {
    expect(parseModelHeaders('{"x-portkey-provider": "openai", "X-Title": "My actor"}')).toEqual({
      'x-portkey-provider': 'openai',
      'X-Title': 'My actor',
    });
    expect(parseModelHeaders(undefined)).toEqual({});
    expect(parseModelHeaders('  ')).toEqual({});
    expect(parseModelHeaders('{}')).toEqual({});
  });

  it.each([
    [
      'x-portkey-provider: openai',
      'must be a JSON object of header names to string values, e.g. {"x-portkey-provider": "openai"}; it is not valid JSON',
    ],
    [
      '["a"]',
      'must be a JSON object of header names to string values, e.g. {"x-portkey-provider": "openai"}; it is a list',
    ],
    [
      '"text"',
      'must be a JSON object of header names to string values, e.g. {"x-portkey-provider": "openai"}; it is a string',
    ],
    [
      'null',
      'must be a JSON object of header names to string values, e.g. {"x-portkey-provider": "openai"}; it is null',
    ],
    [
      '{"bad name": "x"}',
      `has the header name "bad name", which is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`,
    ],
    ['{"x-a": "1", "X-A": "2"}', 'names the header "X-A" twice (header names ignore case)'],
    ['{"x-a": 1}', 'gives the header "x-a" a number; values must be strings (a JSON value goes in as text)'],
    ['{"x-a": {"k": 1}}', 'gives the header "x-a" an object; values must be strings (a JSON value goes in as text)'],
    ['{"x-a": " "}', 'gives the header "x-a" an empty value'],
    ['{"x-a": "one\\r\\nx-b: two"}', 'gives the header "x-a" a value with a line break or a control character'],
    [
      '{"Authorization": "Bearer k"}',
      'may not set Authorization: the model server\'s key goes in LLM_API_KEY (sent as "Authorization: Bearer <key>"); a gateway\'s own key goes in its own header',
    ],
    ['{"HOST": "evil.example"}', 'may not set HOST: the HTTP client sets it'],
  ])('refuses %s in one line', (raw, message) => {
    expect(() => parseModelHeaders(raw)).toThrow(message);
    expect(message).not.toContain('\n');
  });

  it('refuses every header the client sets itself, in any case', () => {
    for (const name of REFUSED_MODEL_HEADERS)
      expect(() => parseModelHeaders(JSON.stringify({ [name.toUpperCase()]: 'x' }))).toThrow(/may not set/);
  });

  it('never quotes a value, nor the text of a value that is not JSON', () => {
    for (const raw of [
      '{"x-key": "sk-SECRET-1", oops}',
      '{"x-key": "sk-SECRET-1\\n"}',
      '{"x-key": "sk-SECRET-1", "X-KEY": "sk-SECRET-1"}',
    ]) {
      expect(() => parseModelHeaders(raw)).toThrow();
      try {
        parseModelHeaders(raw);
      } catch (error) {
        expect((error as Error).message).not.toContain('SECRET');
      }
    }
  });
});

describe('the LLM_HEADERS of docs/agent.md (Model gateways)', () => {
  const doc = readFileSync(new URL('../../docs/agent.md', import.meta.url), 'utf8');
  const documented = [...doc.matchAll(/LLM_HEADERS='([^']*)'/g)].map((match) => match[1]!);

  it('are there, one per gateway that needs headers', () => {
    expect(documented.length).toBeGreaterThanOrEqual(4);
  });

  it.each(documented)('%s parses', (raw) => {
    expect(Object.keys(parseModelHeaders(raw)).length).toBeGreaterThan(0);
  });
});

describe('MODEL_HEADERS_PATTERN, the llm_headers setting in /openapi.json (#40)', () => {
  const pattern = new RegExp(MODEL_HEADERS_PATTERN, 'u');
  it.each([
    '',
    '  ',
    '{}',
    '{"x-portkey-provider": "openai"}',
    ' { "x-a" : "b c" , "y":"1"} ',
    '{"Hosts": "a", "x-host": "b"}',
  ])('admits %j, which parseModelHeaders takes', (text) => {
    expect(pattern.test(text)).toBe(true);
    expect(() => parseModelHeaders(text)).not.toThrow();
  });
  it.each([
    'nope',
    '\u0011a',
    '{"x": 1}',
    '{"a b": "c"}',
    '{"x": " "}',
    '["x"]',
    '{"x": "a\\nb"}',
    '{"Host": "a"}',
    '{"x": "1", "AUTHORIZATION": "Bearer k"}',
    '{"content-Type": "text/plain"}',
  ])('refuses %j, which parseModelHeaders refuses', (text) => {
    expect(pattern.test(text)).toBe(false);
    expect(() => parseModelHeaders(text)).toThrow();
  });
});
