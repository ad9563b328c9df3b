import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { settingsJsonSchema } from '../../config/settings-json-schema.js';
import { platformField, type PlatformFieldOptions } from './index.js';

describe('platformField', () => {
  it('carries every option as its x-platform-* key into the settings JSON Schema', () => {
    const Settings = v.object({
      units: v.optional(
        v.pipe(
          v.picklist(['metric', 'imperial']),
          platformField('weather', {
            managedBy: 'platform',
            widget: 'select',
            order: 2,
            placeholder: 'Pick one',
            options: [
              { value: 'metric', label: 'Metric' },
              { value: 'imperial', label: 'Imperial' },
            ],
            showIf: { field: 'enabled', equals: true },
            display: { help: 'Shown in forecasts', advanced: true },
            validation: { pattern: '^[a-z]+$', minLength: 2, maxLength: 12, message: 'letters only' },
          }),
        ),
        'metric',
      ),
      temperature: v.pipe(v.number(), platformField('model', { widget: 'slider', step: 0.5, creatorValue: 0.7 })),
      folder: v.pipe(v.string(), platformField('weather', { fedByConnector: 'google_drive' })),
    });
    const properties = settingsJsonSchema(Settings).properties ?? {};
    expect(properties.units).toEqual({
      enum: ['metric', 'imperial'],
      type: 'string',
      'x-platform-section': 'weather',
      'x-platform-managed-by': 'platform',
      'x-platform-widget': 'select',
      'x-platform-order': 2,
      'x-platform-placeholder': 'Pick one',
      'x-platform-options': [
        { value: 'metric', label: 'Metric' },
        { value: 'imperial', label: 'Imperial' },
      ],
      'x-platform-show-if': { field: 'enabled', equals: true },
      'x-platform-display': { help: 'Shown in forecasts', advanced: true },
      'x-platform-validation': { pattern: '^[a-z]+$', min_length: 2, max_length: 12, message: 'letters only' },
      default: 'metric',
    });
    expect(properties.temperature).toMatchObject({
      'x-platform-step': 0.5,
      'x-platform-creator-value': 0.7,
      'x-platform-managed-by': 'user',
    });
    expect(properties.folder).toMatchObject({ 'x-platform-fed-by-connector': 'google_drive' });
  });

  it('marks a secret writeOnly and leaves the value schema untouched', () => {
    const Settings = v.object({
      api_key: v.pipe(
        v.string(),
        v.minLength(8),
        platformField('credentials', { managedBy: 'user', widget: 'password', secret: true }),
      ),
    });
    expect(settingsJsonSchema(Settings).properties?.api_key).toEqual({
      type: 'string',
      minLength: 8,
      'x-platform-section': 'credentials',
      'x-platform-managed-by': 'user',
      'x-platform-widget': 'password',
      writeOnly: true,
    });
    expect(v.safeParse(Settings, { api_key: 'short' }).success).toBe(false);
    expect(v.parse(Settings, { api_key: 'long-enough' })).toEqual({ api_key: 'long-enough' });
  });

  it('freezes its metadata without freezing the caller’s objects', () => {
    const values = ['a', 'b'];
    const action = platformField('general', { showIf: { field: 'mode', in: values } });
    expect(Object.isFrozen(action.metadata)).toBe(true);
    expect(Object.isFrozen(action.metadata['x-platform-show-if'])).toBe(true);
    expect(Object.isFrozen(values)).toBe(false);
  });

  const refusals: [string, string, PlatformFieldOptions, RegExp][] = [
    [
      'managedBy outside platform/user',
      'general',
      { managedBy: 'admin' as never },
      /managedBy must be "platform" or "user", got "admin"/,
    ],
    [
      'fedByConnector with creatorValue (rule F)',
      'general',
      { fedByConnector: 'drive', creatorValue: 'x' },
      /fedByConnector and creatorValue exclude each other \(rule F\)/,
    ],
    ['an unknown widget', 'general', { widget: 'dial' as never }, /unknown widget "dial"/],
    [
      'a secret managed by the platform',
      'credentials',
      { secret: true, managedBy: 'platform' },
      /secret field must be managed by "user"/,
    ],
    ['a fractional order', 'general', { order: 1.5 }, /order must be an integer/],
    ['a step of zero', 'general', { step: 0 }, /step must be a positive number/],
    [
      'an invalid validation pattern',
      'general',
      { validation: { pattern: '(' } },
      /validation.pattern is not a valid regular expression/,
    ],
    [
      'min above max',
      'general',
      { validation: { min: 5, max: 1 } },
      /validation.min \(5\) exceeds validation.max \(1\)/,
    ],
    [
      'a show-if without a field',
      'general',
      { showIf: { field: '' } },
      /showIf.field must name another settings field/,
    ],
    [
      'a malformed connector id',
      'general',
      { fedByConnector: 'Google Drive' },
      /fedByConnector must be a connector id/,
    ],
    ['a malformed section id', 'My Section', {}, /the section id must be lower-case words/],
  ];

  it.each(refusals)('refuses %s at definition time', (_what, section, options, message) => {
    expect(() => platformField(section, options)).toThrow(message);
    expect(() => platformField(section, options)).toThrow(new RegExp(`^platformField\\('${section}'\\)`));
  });
});
