import * as v from 'valibot';
import { statsPanel, type ActorDefinition } from 'actorkit';
import { platformField } from 'actorkit/sdk';

/** The settings of Panel Workflow Actor: each field carries its platform annotations. */
export const Settings = v.object({
  llm_base_url: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(https?:\/\/(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}|(?:(?![Xx][Nn]--)[A-Za-z0-9-]+\.)*(?![Xx][Nn]--)[A-Za-z][A-Za-z0-9-]*|\[::1\])(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?([/?#]\S*)?)?$/, 'an absolute http:// or https:// URL (a host name, an IPv4 address or [::1], and a port up to 65535) without user:password@, or empty for the offline model'),
      v.title('Model server'),
      v.description('OpenAI-compatible base URL; empty uses the offline model'),
      platformField('model', { managedBy: 'platform', widget: 'text', order: 1, placeholder: 'https://api.openai.com/v1' }),
    ),
    "",
  ),
  llm_model: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^([A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199})?$/, 'a model name without spaces, at most 200 characters, or empty'),
      v.title('Model'),
      v.description('Model name at the model server'),
      platformField('model', { managedBy: 'platform', widget: 'text', order: 2, placeholder: 'gpt-4o-mini' }),
    ),
    "",
  ),
  llm_api_key: v.optional(
    v.pipe(
      v.string(),
      v.title('Model API key'),
      platformField('credentials', { managedBy: 'user', widget: 'password', order: 1, secret: true }),
    ),
  ),
  llm_headers: v.optional(
    v.pipe(
      v.string(),
      v.title('Model request headers'),
      v.description('Extra headers sent on every model call, as a JSON object, e.g. {"x-portkey-provider": "openai"} for a gateway'),
      platformField('credentials', { managedBy: 'user', widget: 'password', order: 2, secret: true, placeholder: '{"x-portkey-provider": "openai"}' }),
    ),
  ),
  orders_greeting: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(120),
      v.title('Greeting'),
      v.description('How Panel Workflow Actor greets people'),
      platformField('orders', { managedBy: 'user', widget: 'text', order: 1, placeholder: 'Hello' }),
    ),
    'Hello',
  ),
  history_limit: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.maxValue(200),
      v.title('History limit'),
      v.description('How many earlier messages of a session the model sees'),
      platformField('advanced', { managedBy: 'user', widget: 'slider', order: 1, step: 1 }),
    ),
    20,
  ),
});

/** The settings as the actor's code sees them. */
export type Settings = v.InferOutput<typeof Settings>;

/**
 * Panel Workflow Actor: its card, template options, settings and sections, and everything it exposes
 * beside the routes every actor serves. `createActorApp` mounts from this definition and
 * `actorkit validate` emits `src/platform/config.json` from it, so the two always agree.
 */
const actor = {
  metadata: {
    name: "Panel Workflow Actor",
    slug: "panel-workflow-actor",
    version: '0.1.0',
    description: "Panel Workflow Actor: a chat actor built with actorkit.",
    domain: "orders",
    tags: ["orders"],
  },
  features: {
    declareReadinessProbe: true,
    includePanel: true,
    fleetMesh: false,
    integrationType: "n8n",
    exposeExternalApi: true,
    exposeMcp: false,
    exposeAgUi: false,
    exposeA2a: false,
  },
  settings: Settings,
  sections: [{ id: "orders", title: "Orders", description: 'What Panel Workflow Actor does' }],
  restartRequired: ['llm_base_url', 'llm_model', 'llm_api_key', 'llm_headers'],
  // Owner panels, under /panel/<slug>.
  panels: [statsPanel()],
  // OAuth providers /oauth/authorize offers, each configured from OAUTH_<PROVIDER>_* variables, e.g.:
  // oauth: [{ provider: 'github', title: 'GitHub', scopes: ['read:user'] }],
} satisfies ActorDefinition<typeof Settings>;

export default actor;
