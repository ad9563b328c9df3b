import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { convertAnswer } from '../../cli/render/answer-value.js';
import { loadTemplateConfig, type TemplateQuestion } from '../../cli/render/template-config.js';
import { bundledTemplateDir } from '../../cli/render/template-source.js';
import { readAgentConfig } from '../../src/agent/agent-config.js';
import { Settings } from '../../examples/hello-actor/src/actor.js';

const ROOT = resolve(import.meta.dirname, '../..');
const config = await loadTemplateConfig(bundledTemplateDir());
const question = (name: string) => config.questions.find((candidate) => candidate.name === name) as TemplateQuestion;
const accepts = (name: string, value: string) => convertAnswer(question(name), value).ok;
const platformSchema = JSON.parse(
  readFileSync(join(ROOT, 'platform-schema', 'v1', 'actor-config.schema.json'), 'utf8'),
) as {
  $defs: Record<string, { properties: Record<string, { pattern?: string; maxLength?: number }> }>;
};
const platformAccepts = (definition: string, field: string, value: string) => {
  const rule = platformSchema.$defs[definition]?.properties[field];
  if (rule === undefined) throw new Error(`no ${definition}.${field} in the platform schema`);
  return (
    (rule.pattern === undefined || new RegExp(rule.pattern, 'u').test(value)) &&
    (rule.maxLength === undefined || value.length <= rule.maxLength)
  );
};

const URLS = [
  '',
  'http://127.0.0.1:11434/v1',
  'https://api.openai.com/v1',
  'http://user:pw@host:8080/v1?x=1',
  'not a url',
  'ftp://host/v1',
  'localhost:8080',
  '/v1',
  'http://',
  'http:///v1',
  'http://a b/v1',
  ' http://host',
];
const MODELS = [
  '',
  'gpt-4o-mini',
  'llama3.1:8b',
  'meta-llama/Llama-3-8B-Instruct',
  'model@2024+q4',
  'gpt 4',
  '-x',
  'a'.repeat(200),
  'a'.repeat(201),
  'x\n',
];

describe("the bundled template's validators accept what the actor accepts", () => {
  it('every question but the booleans and choices has a validator', () => {
    const unchecked = config.questions
      .filter((candidate) => candidate.type === 'str' && candidate.validator === undefined)
      .map((candidate) => candidate.name);
    expect(unchecked).toEqual([]);
  });

  it.each(URLS)('llm_base_url %j: the question, the settings schema and the runtime agree', (url) => {
    const accepted = accepts('llm_base_url', url);
    expect(v.safeParse(Settings.entries.llm_base_url, url).success).toBe(accepted);
    if (accepted) expect(() => readAgentConfig({}, { llm_base_url: url })).not.toThrow();
  });

  it.each(MODELS)('llm_model %j: the question and the settings schema agree', (model) => {
    expect(v.safeParse(Settings.entries.llm_model, model).success).toBe(accepts('llm_model', model));
  });

  it.each([
    'weather',
    'my-bot',
    'a',
    'a'.repeat(63),
    'a'.repeat(64),
    'My-Bot',
    'bot-',
    '-bot',
    'two--dashes',
    '9lives',
  ])('actor_slug %j is accepted only when the platform accepts it', (slug) => {
    if (accepts('actor_slug', slug)) expect(platformAccepts('actor', 'slug', slug)).toBe(true);
  });

  it.each(['weather', 'ab', 'j', 'two-words', 'Weather', 'w9'])(
    'domain_module %j is accepted only when the platform accepts it',
    (domain) => {
      if (accepts('domain_module', domain)) expect(platformAccepts('actor', 'domain', domain)).toBe(true);
    },
  );

  it.each([
    'registry.example.com/actors/x',
    'localhost:5000/team/bot',
    'ghcr.io/acme/hello-actor',
    'bot',
    'Registry.example.com/x',
    'host/x:tag',
  ])('image_repo %j is accepted only when the platform accepts it', (repo) => {
    if (accepts('image_repo', repo)) expect(platformAccepts('deployment', 'image_repo', repo)).toBe(true);
  });
});
