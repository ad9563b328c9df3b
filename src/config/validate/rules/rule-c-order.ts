import { PLATFORM_ANNOTATION_KEYS } from '../../platform-annotations.js';
import { definePlatformRule, type RuleFinding } from '../platform-rule.js';
import { annotationPointer, settingFields } from './setting-fields.js';

/** Rule C: `x-platform-order` values are unique within a section. */
export const ruleCOrder = definePlatformRule({
  letter: 'C',
  name: 'order',
  checks: '`order` is unique within a section',
  pointers: "the later field's `…/x-platform-order`",
  check(config) {
    const { section: sectionKey, order: orderKey } = PLATFORM_ANNOTATION_KEYS;
    const owners = new Map<string, string>();
    const problems: RuleFinding[] = [];
    for (const field of settingFields(config)) {
      const section = field.schema[sectionKey];
      const order = field.schema[orderKey];
      if (typeof section !== 'string' || typeof order !== 'number') continue;
      const slot = `${section}\u0000${order}`;
      const owner = owners.get(slot);
      if (owner === undefined) owners.set(slot, field.key);
      else {
        problems.push({
          pointer: annotationPointer(field, orderKey),
          message: `setting '${field.key}' has ${orderKey} ${order} in section '${section}', already used by '${owner}'`,
        });
      }
    }
    return problems;
  },
});
