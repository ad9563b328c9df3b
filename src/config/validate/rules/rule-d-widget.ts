import {
  CHOICE_WIDGETS,
  PLATFORM_ANNOTATION_KEYS,
  PLATFORM_WIDGET_TYPES,
  isPlatformWidget,
} from '../../platform-annotations.js';
import { definePlatformRule, type RuleFinding } from '../platform-rule.js';
import {
  annotationPointer,
  asObject,
  schemaTypes,
  settingFields,
  valueFitsTypes,
  type SettingField,
} from './setting-fields.js';

/**
 * Rule D: the widget fits the field's type; `select`/`radio`/`multiselect` have options (or an
 * enum) whose values match the type; `step` only on numbers; `slider` has a minimum and a maximum.
 */
export const ruleDWidget = definePlatformRule({
  letter: 'D',
  name: 'widget',
  checks:
    'the widget fits the type; `select`/`radio`/`multiselect` have options or an enum, and option values match the type and the enum; `step` only on numbers; `slider` has a minimum and a maximum',
  pointers: '`…/x-platform-widget`, `…/x-platform-options/<i>/value`, `…/x-platform-step`',
  check(config) {
    return settingFields(config).flatMap((field) => [...widgetProblems(field), ...stepProblems(field)]);
  },
});

function widgetProblems(field: SettingField): RuleFinding[] {
  const { widget: widgetKey } = PLATFORM_ANNOTATION_KEYS;
  const widget = field.schema[widgetKey];
  if (widget === undefined) return [];
  const at = annotationPointer(field, widgetKey);
  if (!isPlatformWidget(widget)) {
    return [
      {
        pointer: at,
        message: `setting '${field.key}' uses unknown widget ${JSON.stringify(widget)}; known: ${Object.keys(PLATFORM_WIDGET_TYPES).join(', ')}`,
      },
    ];
  }
  const types = schemaTypes(field.schema);
  const fits = PLATFORM_WIDGET_TYPES[widget] as readonly string[];
  if (types !== undefined && ![...types].some((type) => fits.includes(type))) {
    return [
      {
        pointer: at,
        message: `widget '${widget}' does not fit setting '${field.key}' of type ${[...types].join('|') || 'unknown'}; it edits ${fits.join('|')}`,
      },
    ];
  }
  if (widget === 'slider' && !hasBounds(field.schema)) {
    return [{ pointer: at, message: `widget 'slider' on setting '${field.key}' needs a minimum and a maximum` }];
  }
  return CHOICE_WIDGETS.includes(widget) ? choiceProblems(field, widget) : [];
}

function choiceProblems(field: SettingField, widget: string): RuleFinding[] {
  const { options: optionsKey, widget: widgetKey } = PLATFORM_ANNOTATION_KEYS;
  const valueSchema = widget === 'multiselect' ? asObject(field.schema.items) : field.schema;
  const allowed = Array.isArray(valueSchema?.enum) ? (valueSchema.enum as unknown[]) : undefined;
  const options = field.schema[optionsKey];
  if (!Array.isArray(options)) {
    return allowed === undefined
      ? [
          {
            pointer: annotationPointer(field, widgetKey),
            message: `widget '${widget}' on setting '${field.key}' needs ${optionsKey} or an enum`,
          },
        ]
      : [];
  }
  const types = schemaTypes(valueSchema);
  const problems: RuleFinding[] = [];
  options.forEach((option, index) => {
    const value = asObject(option)?.value;
    if (value === undefined) return;
    const at = annotationPointer(field, optionsKey, index, 'value');
    if (types !== undefined && !valueFitsTypes(value, types)) {
      problems.push({
        pointer: at,
        message: `option ${JSON.stringify(value)} of setting '${field.key}' does not match its type ${[...types].join('|')}`,
      });
    } else if (allowed !== undefined && !allowed.includes(value)) {
      problems.push({
        pointer: at,
        message: `option ${JSON.stringify(value)} of setting '${field.key}' is not one of its enum values`,
      });
    }
  });
  return problems;
}

function stepProblems(field: SettingField): RuleFinding[] {
  const { step: stepKey } = PLATFORM_ANNOTATION_KEYS;
  if (!(stepKey in field.schema)) return [];
  const types = schemaTypes(field.schema);
  if (types === undefined || types.has('number') || types.has('integer')) return [];
  return [
    {
      pointer: annotationPointer(field, stepKey),
      message: `${stepKey} on setting '${field.key}' applies only to numbers`,
    },
  ];
}

function hasBounds(schema: Record<string, unknown>): boolean {
  const validation = asObject(schema[PLATFORM_ANNOTATION_KEYS.validation]);
  const low =
    typeof schema.minimum === 'number' ||
    typeof schema.exclusiveMinimum === 'number' ||
    typeof validation?.min === 'number';
  const high =
    typeof schema.maximum === 'number' ||
    typeof schema.exclusiveMaximum === 'number' ||
    typeof validation?.max === 'number';
  return low && high;
}
