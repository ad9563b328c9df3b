import { PLATFORM_ANNOTATION_KEYS } from '../../platform-annotations.js';
import { jsonPointer } from '../../../core/json-pointer.js';
import { definePlatformRule, type RuleFinding } from '../platform-rule.js';
import { annotationPointer, asObject, settingFields } from './setting-fields.js';

/** Rule A: section ids are unique, and every settings field names a declared section. */
export const ruleASections = definePlatformRule({
  letter: 'A',
  name: 'sections',
  checks: 'section ids are unique; every field has a section and it is declared',
  pointers: '`/sections/<i>/id`, `/settings/properties/<f>` or `…/x-platform-section`',
  check(config) {
    const problems: RuleFinding[] = [];
    const sections = asObject(config)?.sections;
    const declared = new Map<string, number>();
    if (Array.isArray(sections)) {
      sections.forEach((section, index) => {
        const id = asObject(section)?.id;
        if (typeof id !== 'string') return;
        const first = declared.get(id);
        if (first === undefined) declared.set(id, index);
        else {
          problems.push({
            pointer: jsonPointer('sections', index, 'id'),
            message: `section id '${id}' is declared twice (first at ${jsonPointer('sections', first)})`,
          });
        }
      });
    }
    const key = PLATFORM_ANNOTATION_KEYS.section;
    for (const field of settingFields(config)) {
      const section = field.schema[key];
      if (section === undefined) {
        problems.push({
          pointer: field.pointer,
          message: `setting '${field.key}' has no ${key}; every field belongs to a section`,
        });
      } else if (typeof section === 'string' && !declared.has(section)) {
        problems.push({
          pointer: annotationPointer(field, key),
          message: `setting '${field.key}' names section '${section}', which is not declared in 'sections'`,
        });
      }
    }
    return problems;
  },
});
