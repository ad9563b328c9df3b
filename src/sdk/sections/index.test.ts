import { describe, expect, it } from 'vitest';
import { defineActorSections } from './index.js';
import { mergeSections } from '../../config/sections/merge-sections.js';
import { TEMPLATE_SECTIONS } from '../../config/sections/template-sections.js';

describe('mergeSections', () => {
  it('appends the actor’s sections after the template’s and drops later duplicates by id', () => {
    const template = [
      { id: 'general', title: 'General' },
      { id: 'model', title: 'Model' },
    ];
    const actor = [
      { id: 'weather', title: 'Weather' },
      { id: 'model', title: 'Actor model' },
      { id: 'weather', title: 'Weather again' },
    ];
    expect(mergeSections(template, actor)).toEqual([
      { id: 'general', title: 'General' },
      { id: 'model', title: 'Model' },
      { id: 'weather', title: 'Weather' },
    ]);
    expect(actor).toHaveLength(3);
  });

  it('keeps the template’s own sections when the actor has none', () => {
    expect(mergeSections(TEMPLATE_SECTIONS, [])).toEqual([...TEMPLATE_SECTIONS]);
    expect(TEMPLATE_SECTIONS.map((section) => section.id)).toEqual(['general', 'model', 'credentials', 'advanced']);
  });
});

describe('defineActorSections', () => {
  it('returns the sections frozen, in order', () => {
    const sections = defineActorSections([
      { id: 'weather', title: 'Weather', order: 50 },
      { id: 'alerts', title: 'Alerts', description: 'When to warn' },
    ]);
    expect(sections.map((section) => section.id)).toEqual(['weather', 'alerts']);
    expect(Object.isFrozen(sections)).toBe(true);
    expect(Object.isFrozen(sections[0])).toBe(true);
  });

  it.each([
    ['a malformed id', [{ id: 'Weather Stuff', title: 'W' }], /the id must be lower-case words/],
    [
      'a template id',
      [{ id: 'model', title: 'Model' }],
      /^\[A sections\] \/sections\/0: .*already declared by the template; annotate the fields with platformField\('model'\)/,
    ],
    [
      'a repeated id',
      [
        { id: 'weather', title: 'A' },
        { id: 'weather', title: 'B' },
      ],
      /^\[A sections\] \/sections\/1: .*'weather' is declared twice/,
    ],
    ['an empty title', [{ id: 'weather', title: ' ' }], /needs a title/],
    ['a fractional order', [{ id: 'weather', title: 'W', order: 1.5 }], /order must be an integer/],
  ])('refuses %s', (_what, sections, message) => {
    expect(() => defineActorSections(sections)).toThrow(message);
  });
});
