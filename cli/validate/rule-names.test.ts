import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PLATFORM_RULES } from '../../src/config/validate/validate-platform-config.js';
import { RULE_NAMES, ruleLabel } from './rule-names.js';

describe('RULE_NAMES', () => {
  it('names every tuning rule the validator runs, and no other', () => {
    const letters = PLATFORM_RULES.map((_rule, index) => String.fromCharCode(65 + index));
    expect(Object.keys(RULE_NAMES)).toEqual(letters);
  });

  it('takes each name from the rule module it labels (rule-<letter>-<name>.ts)', () => {
    PLATFORM_RULES.forEach((rule, index) => {
      const letter = String.fromCharCode(65 + index);
      expect(rule.name.startsWith(`rule${letter}`)).toBe(true);
      expect(rule.name.toLowerCase()).toContain(RULE_NAMES[letter]!.replaceAll('-', ''));
    });
  });

  it('is documented in docs/cli.md', () => {
    const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    for (const letter of Object.keys(RULE_NAMES)) expect(doc).toContain(`\`${ruleLabel(letter)}\``);
  });
});

describe('ruleLabel', () => {
  it('puts the name beside a rule letter and leaves other rules alone', () => {
    expect(ruleLabel('C')).toBe('C order');
    expect(ruleLabel('H')).toBe('H deployment');
    expect(ruleLabel('schema')).toBe('schema');
    expect(ruleLabel('emitter')).toBe('emitter');
    expect(ruleLabel('constructor')).toBe('constructor');
  });
});
