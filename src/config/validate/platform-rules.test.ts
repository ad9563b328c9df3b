import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLATFORM_RULES, withPlatformRuleTable } from './platform-rules.js';
import { ruleLabel } from './rule-label.js';

describe('PLATFORM_RULES', () => {
  it('gives the rules consecutive letters from A, in order, with unique kebab-case names', () => {
    expect(PLATFORM_RULES.map((rule) => rule.letter)).toEqual(
      PLATFORM_RULES.map((_rule, index) => String.fromCharCode(65 + index)),
    );
    for (const rule of PLATFORM_RULES) expect(rule.name).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(new Set(PLATFORM_RULES.map((rule) => rule.name)).size).toBe(PLATFORM_RULES.length);
  });

  it('keeps each rule in its own file, rules/rule-<letter>-<name>.ts, and no rule file out of the registry', () => {
    const files = readdirSync(new URL('./rules/', import.meta.url)).filter((file) =>
      /^rule-[a-z]-.*(?<!\.test)\.ts$/.test(file),
    );
    expect(files.map((file) => file.slice('rule-'.length, 'rule-x'.length).toUpperCase())).toEqual(
      PLATFORM_RULES.map((rule) => rule.letter),
    );
    PLATFORM_RULES.forEach((rule, index) =>
      expect(files[index]?.replaceAll('-', '')).toContain(rule.name.replaceAll('-', '')),
    );
  });

  it('documents every rule in docs/configuration.md, as `npm run docs:rules` generates it', () => {
    const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    expect(withPlatformRuleTable(doc), 'docs/configuration.md is stale: run `npm run docs:rules`').toBe(doc);
    for (const rule of PLATFORM_RULES) expect(doc).toContain(`| ${rule.letter} | \`${rule.name}\` |`);
  });

  it('refuses a doc without the markers', () => {
    expect(() => withPlatformRuleTable('# no markers')).toThrow(/markers/);
  });
});

describe('ruleLabel', () => {
  it('puts the name beside a rule letter and leaves other rules alone', () => {
    expect(ruleLabel('C')).toBe('C order');
    expect(ruleLabel('H')).toBe('H deployment');
    for (const rule of PLATFORM_RULES) expect(ruleLabel(rule.letter)).toBe(`${rule.letter} ${rule.name}`);
    expect(ruleLabel('schema')).toBe('schema');
    expect(ruleLabel('emitter')).toBe('emitter');
    expect(ruleLabel('constructor')).toBe('constructor');
  });
});
