import * as v from 'valibot';
import {
  MANAGED_BY_VALUES,
  PLATFORM_ANNOTATION_KEYS,
  PLATFORM_ID_PATTERN,
  PLATFORM_WIDGET_TYPES,
  isPlatformWidget,
  type ManagedBy,
  type PlatformWidget,
} from '../../config/platform-annotations.js';

/** A JSON value, as it may appear in the emitted configuration. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** One choice of a `select`, `radio` or `multiselect` widget. */
export interface PlatformFieldOption {
  readonly value: string | number | boolean;
  readonly label: string;
}

/** Shows a field only when another field of the same settings has a value (any truthy value when neither `equals` nor `in` is given). */
export interface PlatformShowIf {
  readonly field: string;
  readonly equals?: JsonValue;
  readonly in?: readonly JsonValue[];
}

/** Display hints for the platform UI. */
export interface PlatformDisplay {
  readonly label?: string;
  readonly help?: string;
  readonly hidden?: boolean;
  readonly advanced?: boolean;
}

/** Client-side validation rules the platform UI applies before saving (the valibot schema still decides). */
export interface PlatformValidation {
  readonly pattern?: string;
  readonly min?: number;
  readonly max?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly message?: string;
}

/** The options of `platformField`; each becomes one `x-platform-*` key. */
export interface PlatformFieldOptions {
  /** `platform` or `user` (default `user`); anything else throws. */
  readonly managedBy?: ManagedBy;
  readonly widget?: PlatformWidget;
  /** Position within the section; unique per section (rule C). */
  readonly order?: number;
  readonly placeholder?: string;
  readonly options?: readonly PlatformFieldOption[];
  /** Increment of a number widget. */
  readonly step?: number;
  readonly showIf?: PlatformShowIf;
  readonly display?: PlatformDisplay;
  readonly validation?: PlatformValidation;
  /** Id of the connector that supplies this value; excludes `creatorValue` (rule F). */
  readonly fedByConnector?: string;
  /** The value the actor's creator fixes at publication; excludes `fedByConnector` (rule F). */
  readonly creatorValue?: JsonValue;
  /** Marks the field `writeOnly`: never echoed, logged or written to `config.json`. */
  readonly secret?: boolean;
}

/** The metadata object `platformField` attaches: `x-platform-*` keys and, for secrets, `writeOnly`. */
export type PlatformFieldMetadata = Readonly<Record<string, JsonValue>>;

/**
 * Annotates a settings field for the platform: a valibot `metadata` action whose keys
 * (`x-platform-section`, `x-platform-managed-by`, …) are copied into the settings JSON Schema.
 * Mistakes the rules would reject later throw here, at definition time.
 * @param section id of the section the field belongs to
 * @param options UI hints, ownership and connector wiring
 * @example
 * const Settings = v.object({
 *   api_key: v.pipe(v.string(), platformField('credentials', { widget: 'password', secret: true })),
 * });
 */
export function platformField<TInput>(
  section: string,
  options: PlatformFieldOptions = {},
): v.MetadataAction<TInput, PlatformFieldMetadata> {
  assertValidField(section, options);
  const keys = PLATFORM_ANNOTATION_KEYS;
  const metadata: Record<string, JsonValue> = {
    [keys.section]: section,
    [keys.managedBy]: options.managedBy ?? 'user',
  };
  const put = (key: string, value: JsonValue | undefined) => {
    if (value !== undefined) metadata[key] = value;
  };
  put(keys.widget, options.widget);
  put(keys.order, options.order);
  put(keys.placeholder, options.placeholder);
  put(
    keys.options,
    options.options?.map((option) => ({ value: option.value, label: option.label })),
  );
  put(keys.step, options.step);
  put(
    keys.showIf,
    options.showIf && compact({ field: options.showIf.field, equals: options.showIf.equals, in: options.showIf.in }),
  );
  put(keys.display, options.display && compact({ ...options.display }));
  put(keys.validation, options.validation && validationJson(options.validation));
  put(keys.fedByConnector, options.fedByConnector);
  put(keys.creatorValue, options.creatorValue);
  if (options.secret === true) metadata.writeOnly = true;
  return v.metadata<TInput, PlatformFieldMetadata>(deepFreeze(structuredClone(metadata)));
}

function assertValidField(section: string, options: PlatformFieldOptions): void {
  const fail = (message: string): never => {
    throw new Error(`platformField('${String(section)}'): ${message}`);
  };
  if (typeof section !== 'string' || !PLATFORM_ID_PATTERN.test(section)) {
    fail('the section id must be lower-case words joined by "_" or "-", e.g. "credentials"');
  }
  if (options.managedBy !== undefined && !(MANAGED_BY_VALUES as readonly unknown[]).includes(options.managedBy)) {
    fail(`managedBy must be "platform" or "user", got ${JSON.stringify(options.managedBy)}`);
  }
  if (options.fedByConnector !== undefined && options.creatorValue !== undefined) {
    fail(
      'fedByConnector and creatorValue exclude each other (rule F): a connector-fed value cannot also be fixed by the creator',
    );
  }
  if (options.fedByConnector !== undefined && !PLATFORM_ID_PATTERN.test(options.fedByConnector)) {
    fail(`fedByConnector must be a connector id, got ${JSON.stringify(options.fedByConnector)}`);
  }
  if (options.widget !== undefined && !isPlatformWidget(options.widget)) {
    fail(`unknown widget ${JSON.stringify(options.widget)}; known: ${Object.keys(PLATFORM_WIDGET_TYPES).join(', ')}`);
  }
  if (options.secret === true && options.managedBy === 'platform') {
    fail('a secret field must be managed by "user" (rule H)');
  }
  if (options.order !== undefined && !Number.isInteger(options.order))
    fail(`order must be an integer, got ${options.order}`);
  if (options.step !== undefined && !(Number.isFinite(options.step) && options.step > 0)) {
    fail(`step must be a positive number, got ${options.step}`);
  }
  if (options.showIf !== undefined && (typeof options.showIf.field !== 'string' || options.showIf.field === '')) {
    fail('showIf.field must name another settings field');
  }
  const pattern = options.validation?.pattern;
  if (pattern !== undefined) {
    try {
      new RegExp(pattern, 'u');
    } catch (error) {
      fail(`validation.pattern is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  const { min, max, minLength, maxLength } = options.validation ?? {};
  if (min !== undefined && max !== undefined && min > max)
    fail(`validation.min (${min}) exceeds validation.max (${max})`);
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    fail(`validation.minLength (${minLength}) exceeds validation.maxLength (${maxLength})`);
  }
}

function validationJson(validation: PlatformValidation): JsonValue {
  return compact({
    pattern: validation.pattern,
    min: validation.min,
    max: validation.max,
    min_length: validation.minLength,
    max_length: validation.maxLength,
    message: validation.message,
  });
}

function compact(object: Record<string, JsonValue | undefined>): { [key: string]: JsonValue } {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as {
    [key: string]: JsonValue;
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
