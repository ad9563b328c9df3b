import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseTemplateConfig } from './template-config.js';

const config = (text: string) => parseTemplateConfig(parse(text));

describe('parseTemplateConfig', () => {
  it('reads settings and questions in file order, inferring types of bare defaults', () => {
    const parsed = config(`
_subdirectory: ./template/
_exclude: ["*.log"]
actor_name: {type: str, help: The name}
replicas: 2
streaming: true
region: {choices: {Europe: eu, America: us}, default: eu}
token: {type: str, secret: true, when: "{{ streaming }}", validator: {regex: "^t-", message: starts with t-}}
`);
    expect(parsed.subdirectory).toBe('template');
    expect(parsed.exclude).toEqual(['*.log']);
    expect(parsed.questions.map((q) => [q.name, q.type])).toEqual([
      ['actor_name', 'str'],
      ['replicas', 'int'],
      ['streaming', 'bool'],
      ['region', 'choice'],
      ['token', 'str'],
    ]);
    expect(parsed.questions[3]?.choices).toEqual([
      { label: 'Europe', value: 'eu' },
      { label: 'America', value: 'us' },
    ]);
    expect(parsed.questions[4]).toMatchObject({
      secret: true,
      when: '{{ streaming }}',
      validator: { message: 'starts with t-' },
    });
  });

  it('reads a format validator with allow_empty, and the message printed after new', () => {
    const parsed = config(`
_message_after_new: "cd {{ target_dir }}"
base_url: {default: "", validator: {format: url, allow_empty: true}}
model: {validator: {regex: "^[a-z]+$"}}
`);
    expect(parsed.messageAfterNew).toBe('cd {{ target_dir }}');
    expect(parsed.questions[0]?.validator).toEqual({
      kind: 'format',
      format: 'url',
      allowEmpty: true,
      message: expect.stringContaining('http:// or https:// URL'),
    });
    expect(parsed.questions[1]?.validator).toMatchObject({
      kind: 'regex',
      allowEmpty: false,
      message: 'must match ^[a-z]+$',
    });
  });

  it.each([
    ['a list at the root', '- a', 'must be a mapping'],
    ['an unknown setting', '_tasks: []', "unknown setting '_tasks'"],
    ['a _subdirectory leaving the repository', '_subdirectory: ../x', 'must stay inside the template repository'],
    ['an _exclude that is not a list', '_exclude: "*.log"', '_exclude must be a list'],
    ['an unknown question key', 'a: {type: str, prompt: x}', "question 'a' has unknown key 'prompt'"],
    ['an unknown type', 'a: {type: float}', "question 'a' has type 'float'"],
    ['a choice without choices', 'a: {type: choice}', "question 'a' is a choice without choices"],
    ['empty choices', 'a: {choices: []}', 'needs a non-empty list or mapping of choices'],
    ['a bad validator regex', 'a: {validator: {regex: "("}}', "question 'a' validator regex is invalid"],
    [
      'an unknown validator format',
      'a: {validator: {format: email}}',
      "question 'a' validator format 'email' is unknown; use url",
    ],
    [
      'a validator with both regex and format',
      'a: {validator: {regex: "^a", format: url}}',
      "question 'a' validator needs a 'regex' string or a 'format'",
    ],
    [
      'a validator with neither regex nor format',
      'a: {validator: {message: hi}}',
      "question 'a' validator needs a 'regex' string or a 'format'",
    ],
    [
      'an unknown validator key',
      'a: {validator: {format: url, empty: true}}',
      "question 'a' validator has unknown key 'empty'",
    ],
    [
      'an allow_empty that is not a boolean',
      'a: {validator: {format: url, allow_empty: "yes"}}',
      "'allow_empty' is not a boolean",
    ],
    ['a _message_after_new that is not a text', '_message_after_new: [a]', '_message_after_new must be a text'],
    ['a question named like no variable', '"my-name": {type: str}', "question 'my-name' is not a valid variable name"],
    ['an actor_id question', 'actor_id: {type: str}', 'the platform assigns'],
    ['a secret that is not a boolean', 'a: {secret: "yes"}', "'secret' that is not a boolean"],
  ])('refuses %s', (_what, text, message) => {
    expect(() => config(text)).toThrow(
      expect.objectContaining({ code: 'invalid_template', message: expect.stringContaining(message) }),
    );
  });
});
