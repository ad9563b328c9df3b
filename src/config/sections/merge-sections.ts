import type { SettingsSection } from '../../core/actor-definition.js';

/**
 * Appends the actor's sections after the template's and drops any section whose `id` was
 * already seen (the first declaration wins).
 * @param templateSections the template's own sections, first
 * @param actorSections the actor's sections, appended
 * @example
 * mergeSections(TEMPLATE_SECTIONS, [{ id: 'weather', title: 'Weather' }]);
 */
export function mergeSections(
  templateSections: readonly SettingsSection[],
  actorSections: readonly SettingsSection[],
): SettingsSection[] {
  const seen = new Set<string>();
  const merged: SettingsSection[] = [];
  for (const section of [...templateSections, ...actorSections]) {
    if (seen.has(section.id)) continue;
    seen.add(section.id);
    merged.push(section);
  }
  return merged;
}
