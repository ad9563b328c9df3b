import type { SettingsSection } from '../../core/actor-definition.js';
import { PLATFORM_ID_PATTERN } from '../../config/platform-annotations.js';
import { sectionIdProblems } from '../../config/sections/section-id-problems.js';
import { ruleASections } from '../../config/validate/rules/rule-a-sections.js';
import { ruleLabel } from '../../config/validate/rule-label.js';

/**
 * Declares an actor's own settings sections the way the template declares its own (the
 * TypeScript form of `PlatformConfigMixin`): checks them at definition time and returns them
 * frozen, ready for `ActorDefinition.sections`. The emitter appends them after
 * `TEMPLATE_SECTIONS`. Throws on a malformed id, an empty title, or — as rule A, with the
 * pointer of the section in `sections` — a repeated id or one the template already declares
 * (put such fields in the template's section instead).
 * @param sections the actor's sections, in display order
 * @example
 * export const sections = defineActorSections([{ id: 'weather', title: 'Weather', order: 50 }]);
 */
export function defineActorSections(sections: readonly SettingsSection[]): readonly SettingsSection[] {
  for (const section of sections) {
    const label = `defineActorSections: section ${JSON.stringify(section.id)}`;
    if (typeof section.id !== 'string' || !PLATFORM_ID_PATTERN.test(section.id)) {
      throw new Error(`${label}: the id must be lower-case words joined by "_" or "-"`);
    }
    if (typeof section.title !== 'string' || section.title.trim() === '') throw new Error(`${label} needs a title`);
    if (section.order !== undefined && !Number.isInteger(section.order))
      throw new Error(`${label}: order must be an integer`);
  }
  const [repeated] = sectionIdProblems(sections);
  if (repeated !== undefined)
    throw new Error(
      `[${ruleLabel(ruleASections.letter)}] /sections/${repeated.index}: defineActorSections: ${repeated.message}`,
    );
  return Object.freeze(sections.map((section) => Object.freeze({ ...section })));
}
