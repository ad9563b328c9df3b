import { MANAGED_BY_VALUES, PLATFORM_ANNOTATION_KEYS } from '../../platform-annotations.js';
import { definePlatformRule } from '../platform-rule.js';
import { annotationPointer, settingFields } from './setting-fields.js';

/** Rule B: `x-platform-managed-by` is `platform` or `user`. */
export const ruleBManagedBy = definePlatformRule({
  letter: 'B',
  name: 'managed-by',
  checks: '`managed-by` is `platform` or `user`',
  pointers: '`…/x-platform-managed-by`',
  check(config) {
    const key = PLATFORM_ANNOTATION_KEYS.managedBy;
    return settingFields(config)
      .filter((field) => key in field.schema && !(MANAGED_BY_VALUES as readonly unknown[]).includes(field.schema[key]))
      .map((field) => ({
        pointer: annotationPointer(field, key),
        message: `setting '${field.key}': ${key} must be 'platform' or 'user' (got ${JSON.stringify(field.schema[key])})`,
      }));
  },
});
