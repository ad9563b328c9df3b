import type { ActorDefinition } from '../../core/actor-definition.js';
import { sectionIdProblems } from '../sections/section-id-problems.js';
import { TEMPLATE_SECTIONS } from '../sections/template-sections.js';
import { secretSettingKeys, settingsJsonSchema } from '../settings-json-schema.js';
import { ruleASections } from '../validate/rules/rule-a-sections.js';
import { ruleHDeployment } from '../validate/rules/rule-h-deployment.js';
import type { ValidationProblem } from '../validate/validation-problem.js';

/**
 * The problems of an actor's definition that the emitted configuration cannot show, because
 * emitting hides them: a secret setting with a default in the code (rule H; the emitter drops
 * the default, yet the actor would use it and ship it in its image), and an actor section whose
 * id repeats one the template or the actor already declares (rule A; `mergeSections` drops it).
 * Pointers are those of the configuration: `/settings/properties/<key>/default`, and
 * `/sections/<i>` where the dropped section would have been.
 * @param definition the actor's definition.
 */
export function definitionProblems(definition: Pick<ActorDefinition, 'settings' | 'sections'>): ValidationProblem[] {
  const entries = definition.settings.entries as Record<string, { default?: unknown }>;
  const secretDefaults = secretSettingKeys(settingsJsonSchema(definition.settings))
    .filter((key) => entries[key]?.default !== undefined)
    .map((key) => ({
      rule: ruleHDeployment.letter,
      pointer: `/settings/properties/${key}/default`,
      message: `secret setting '${key}' has a default in the code: the actor would use it and ship it in its image; remove the default and set the secret at deployment`,
    }));
  const sections = sectionIdProblems(definition.sections).map(({ index, message }) => ({
    rule: ruleASections.letter,
    pointer: `/sections/${TEMPLATE_SECTIONS.length + index}`,
    message,
  }));
  return [...sections, ...secretDefaults];
}
