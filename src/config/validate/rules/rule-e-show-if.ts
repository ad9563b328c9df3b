import { PLATFORM_ANNOTATION_KEYS } from '../../platform-annotations.js';
import { definePlatformRule, type RuleFinding } from '../platform-rule.js';
import { annotationPointer, asObject, settingFields, type SettingField } from './setting-fields.js';

/** Rule E: `x-platform-show-if` names an existing field of the same settings, and show-if chains have no cycle. */
export const ruleEShowIf = definePlatformRule({
  letter: 'E',
  name: 'show-if',
  checks:
    '`show-if` names a field of the same settings; show-if chains have no cycle (one problem per cycle, at its first field)',
  pointers: '`…/x-platform-show-if/field`',
  check(config) {
    const key = PLATFORM_ANNOTATION_KEYS.showIf;
    const fields = settingFields(config);
    const byKey = new Map(fields.map((field) => [field.key, field]));
    const next = new Map<string, string>();
    const problems: RuleFinding[] = [];
    for (const field of fields) {
      const target = asObject(field.schema[key])?.field;
      if (typeof target !== 'string') continue;
      if (byKey.has(target)) next.set(field.key, target);
      else {
        problems.push({
          pointer: annotationPointer(field, key, 'field'),
          message: `setting '${field.key}' is shown if '${target}', which is not a field of these settings`,
        });
      }
    }
    const reported = new Set<string>();
    for (const field of fields) {
      const cycle = cycleFrom(field.key, next);
      if (cycle === undefined || cycle.some((member) => reported.has(member))) continue;
      for (const member of cycle) reported.add(member);
      const start = byKey.get(cycle[0] ?? '') as SettingField;
      problems.push({
        pointer: annotationPointer(start, key, 'field'),
        message: `show-if chain forms a cycle: ${[...cycle, cycle[0]].join(' -> ')}`,
      });
    }
    return problems;
  },
});

/** The cycle `start` belongs to, beginning at `start`, or `undefined` when its chain ends. */
function cycleFrom(start: string, next: ReadonlyMap<string, string>): string[] | undefined {
  const path: string[] = [];
  for (let current: string | undefined = start; current !== undefined; current = next.get(current)) {
    if (current === start && path.length > 0) return path;
    if (path.includes(current)) return undefined;
    path.push(current);
  }
  return undefined;
}
