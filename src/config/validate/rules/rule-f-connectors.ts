import { PLATFORM_ANNOTATION_KEYS } from '../../platform-annotations.js';
import { jsonPointer } from '../../../core/json-pointer.js';
import { definePlatformRule, type RuleFinding } from '../platform-rule.js';
import { annotationPointer, asObject, settingFields } from './setting-fields.js';

/**
 * Rule F: `fed-by-connector` together with `creator-value` is rejected; a connector reference
 * names a declared connector (connector ids are unique, so a reference is unambiguous).
 */
export const ruleFConnectors = definePlatformRule({
  letter: 'F',
  name: 'connector',
  checks:
    'not both `fed-by-connector` and `creator-value`; a connector reference names a declared connector; connector ids are unique',
  pointers: '`…/x-platform-creator-value`, `…/x-platform-fed-by-connector`, `/connectors/<i>/id`',
  check(config) {
    const { fedByConnector, creatorValue } = PLATFORM_ANNOTATION_KEYS;
    const problems: RuleFinding[] = [];
    const declared = new Set<string>();
    const connectors = asObject(config)?.connectors;
    if (Array.isArray(connectors)) {
      connectors.forEach((connector, index) => {
        const id = asObject(connector)?.id;
        if (typeof id !== 'string') return;
        if (declared.has(id)) {
          problems.push({
            pointer: jsonPointer('connectors', index, 'id'),
            message: `connector id '${id}' is declared twice`,
          });
        }
        declared.add(id);
      });
    }
    for (const field of settingFields(config)) {
      const connector = field.schema[fedByConnector];
      if (connector !== undefined && creatorValue in field.schema) {
        problems.push({
          pointer: annotationPointer(field, creatorValue),
          message: `setting '${field.key}' has both ${fedByConnector} and ${creatorValue}; a connector-fed value cannot also be fixed by the creator`,
        });
      }
      if (typeof connector === 'string' && !declared.has(connector)) {
        problems.push({
          pointer: annotationPointer(field, fedByConnector),
          message: `setting '${field.key}' is fed by connector '${connector}', which is not declared in 'connectors'`,
        });
      }
    }
    return problems;
  },
});
