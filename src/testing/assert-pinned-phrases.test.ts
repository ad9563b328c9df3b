import { describe, expect, it } from 'vitest';
import { assertPinnedPhrases, findPinnedPhraseProblems } from './assert-pinned-phrases.js';

const pinned = { no_medical_advice: 'never give medical advice', units: ['metric units'] };

describe('assertPinnedPhrases', () => {
  it('passes when every pinned rule is stated, ignoring case and spacing', () => {
    expect(() => assertPinnedPhrases('You NEVER give   medical advice.\nUse metric units.', pinned)).not.toThrow();
  });

  it('fails naming each rule the prompt does not state', () => {
    expect(() => assertPinnedPhrases('Use metric units.', pinned)).toThrow(/rule "no_medical_advice"/);
    expect(findPinnedPhraseProblems('Nothing here', pinned)).toHaveLength(2);
  });

  it('fails on an unfilled placeholder but not on literal double braces', () => {
    expect(() => assertPinnedPhrases('Hello {user_name}, never give medical advice in metric units', pinned)).toThrow(
      /unfilled placeholder \{user_name\}/,
    );
    expect(() =>
      assertPinnedPhrases('Reply as JSON like {{"a": 1}}; never give medical advice; metric units', pinned),
    ).not.toThrow();
  });

  it('fails when two role prompts are identical', () => {
    const prompts = {
      planner: 'Never give medical advice. Metric units.',
      writer: 'never give medical advice.  metric units.',
    };
    expect(() => assertPinnedPhrases(prompts, pinned)).toThrow(/writer and planner prompts are identical/);
  });

  it('accepts distinct role prompts that state the rules between them', () => {
    expect(() =>
      assertPinnedPhrases({ planner: 'Plan. Never give medical advice.', writer: 'Write in metric units.' }, pinned),
    ).not.toThrow();
  });
});
