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
    expect(parsed.questions[3]?.choices).toEqual([{ label: 'Europe', value: 'eu' }, { label: 'America', value: 'us' }]);
    expect(parsed.questions[4]).toMatchObject({ secret: true, when: '{{ streaming }}', validator: { message: 'starts with t-' } });
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
    ['a question named like no variable', '"my-name": {type: str}', "question 'my-name' is not a valid variable name"],
    ['an actor_id question', 'actor_id: {type: str}', 'the platform assigns'],
    ['a secret that is not a boolean', 'a: {secret: "yes"}', "'secret' that is not a boolean"],
  ])('refuses %s', (_what, text, message) => {
    expect(() => config(text)).toThrow(expect.objectContaining({ code: 'invalid_template', message: expect.stringContaining(message) }));
  });
});
