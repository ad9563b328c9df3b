import type * as v from 'valibot';

/** The marketplace card fields an actor declares (`GET /api/actor/metadata`). */
export interface ActorMetadata {
  readonly name: string;
  /** kebab-case identifier, unique on the platform. */
  readonly slug: string;
  readonly version: string;
  readonly description: string;
  /** The actor's domain module, e.g. `weather`; namespaces its tools and peer routes. */
  readonly domain: string;
  readonly tags: readonly string[];
  readonly icon?: string;
}

/** The template options that gate behaviour (interface document, "Template options"). */
export interface ActorFeatures {
  /** Default true: `/ready` is declared as the readiness probe. */
  readonly declareReadinessProbe: boolean;
  /** Mounts the owner panel routes. */
  readonly includePanel: boolean;
  /** Mounts the peer-read routes under `/api/<domain>/`. */
  readonly fleetMesh: boolean;
  /** `n8n` mounts the workflow proxy; `none` mounts nothing. */
  readonly integrationType: 'none' | 'n8n';
  /** Default true: the platform may expose `chat`, `status` and `health` on its public edge. */
  readonly exposeExternalApi: boolean;
}

/** A group of settings shown together in the platform's UI. */
export interface SettingsSection {
  readonly id: string;
  readonly title: string;
  readonly description?: string;
  readonly order?: number;
}

/** Any valibot object schema describing an actor's settings. */
export type SettingsSchema = v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;

/**
 * Everything static about an actor: read by the runtime (`createActorApp`) and by the
 * configuration emitter, so both describe the same actor.
 */
export interface ActorDefinition<TSettings extends SettingsSchema = SettingsSchema> {
  readonly metadata: ActorMetadata;
  readonly features: ActorFeatures;
  /** The settings schema; fields carry `platformField(...)` annotations. */
  readonly settings: TSettings;
  /** The actor's own sections, merged after the template's. */
  readonly sections: readonly SettingsSection[];
  /** Settings keys that only take effect after a restart (reported by `PUT /settings`). */
  readonly restartRequired?: readonly (keyof v.InferOutput<TSettings> & string)[];
}

/** Default template options for a new actor. */
export const defaultActorFeatures: ActorFeatures = {
  declareReadinessProbe: true,
  includePanel: false,
  fleetMesh: false,
  integrationType: 'none',
  exposeExternalApi: true,
};
