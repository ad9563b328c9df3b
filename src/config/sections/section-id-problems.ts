import type { SettingsSection } from '../../core/actor-definition.js';
import { TEMPLATE_SECTIONS } from './template-sections.js';

/** An actor section `mergeSections` would drop: its index among the actor's sections and why. */
export interface SectionIdProblem {
  readonly index: number;
  readonly message: string;
}

/**
 * The actor's sections whose id the template already declares or an earlier actor section
 * repeats (rule A: section ids are unique). `mergeSections` keeps the first and drops these, so
 * `defineActorSections` refuses them and `validate` reports them.
 * @param actorSections the actor's own sections, in order.
 */
export function sectionIdProblems(actorSections: readonly SettingsSection[]): SectionIdProblem[] {
  const templateIds = new Set(TEMPLATE_SECTIONS.map((section) => section.id));
  const seen = new Set<string>();
  const problems: SectionIdProblem[] = [];
  actorSections.forEach((section, index) => {
    if (templateIds.has(section.id)) {
      problems.push({
        index,
        message: `section '${section.id}' is already declared by the template; annotate the fields with platformField('${section.id}') instead`,
      });
    } else if (seen.has(section.id)) {
      problems.push({ index, message: `section '${section.id}' is declared twice` });
    }
    seen.add(section.id);
  });
  return problems;
}
