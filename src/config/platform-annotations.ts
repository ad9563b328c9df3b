/**
 * The `x-platform-*` annotation keys a settings field may carry, by the camelCase name of the
 * `platformField` option that sets each one. The emitter copies them into `settings`, the tuning
 * rules read them back, so both sides use this one table.
 */
export const PLATFORM_ANNOTATION_KEYS = {
  section: 'x-platform-section',
  managedBy: 'x-platform-managed-by',
  widget: 'x-platform-widget',
  order: 'x-platform-order',
  placeholder: 'x-platform-placeholder',
  options: 'x-platform-options',
  step: 'x-platform-step',
  showIf: 'x-platform-show-if',
  display: 'x-platform-display',
  validation: 'x-platform-validation',
  fedByConnector: 'x-platform-fed-by-connector',
  creatorValue: 'x-platform-creator-value',
} as const;

/** One `x-platform-*` JSON key. */
export type PlatformAnnotationKey = (typeof PLATFORM_ANNOTATION_KEYS)[keyof typeof PLATFORM_ANNOTATION_KEYS];

/** Who owns a setting's value: the hosting platform or the actor's user (rule B). */
export const MANAGED_BY_VALUES = ['platform', 'user'] as const;

/** Who owns a setting's value. */
export type ManagedBy = (typeof MANAGED_BY_VALUES)[number];

/**
 * The widgets the platform UI can draw, each with the JSON Schema types it can edit (rule D).
 * `select` and `radio` pick one scalar; `multiselect` and `tags` edit arrays.
 */
export const PLATFORM_WIDGET_TYPES = {
  text: ['string'],
  textarea: ['string'],
  password: ['string'],
  url: ['string'],
  email: ['string'],
  number: ['number', 'integer'],
  slider: ['number', 'integer'],
  select: ['string', 'number', 'integer'],
  radio: ['string', 'number', 'integer'],
  multiselect: ['array'],
  tags: ['array'],
  checkbox: ['boolean'],
  switch: ['boolean'],
  json: ['object', 'array'],
} as const satisfies Record<string, readonly string[]>;

/** A widget name the platform UI knows. */
export type PlatformWidget = keyof typeof PLATFORM_WIDGET_TYPES;

/** Widgets that choose among `x-platform-options` (or the field's `enum`). */
export const CHOICE_WIDGETS: readonly PlatformWidget[] = ['select', 'radio', 'multiselect'];

/** The only operations the platform's public edge may expose (rule G). */
export const EXPOSABLE_OPERATIONS = ['chat', 'status', 'health'] as const;

/** An operation the public edge may expose. */
export type ExposableOperation = (typeof EXPOSABLE_OPERATIONS)[number];

/** The edge operation an actor that serves `/mcp` may expose besides {@link EXPOSABLE_OPERATIONS} (rule G). */
export const MCP_EDGE_OPERATION = 'mcp';

/** Pattern of section, connector and panel ids: lower-case words joined by `_` or `-`. */
export const PLATFORM_ID_PATTERN = /^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$/;

/** Returns whether a value is a known widget name. */
export function isPlatformWidget(value: unknown): value is PlatformWidget {
  return typeof value === 'string' && Object.hasOwn(PLATFORM_WIDGET_TYPES, value);
}
