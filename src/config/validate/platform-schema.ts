import schema from '../../../platform-schema/v1/actor-config.schema.json' with { type: 'json' };

/** The vendored platform schema (Draft 2020-12), loaded as a JSON module so it needs no file-system access. */
export const PLATFORM_SCHEMA: Readonly<Record<string, unknown>> = schema;

/** The versioned `$id` of the platform schema. */
export const PLATFORM_SCHEMA_ID: string = schema.$id;
