import * as v from 'valibot';
import { defaultActorFeatures, type ActorDefinition } from 'actorkit';
import { platformField } from 'actorkit/sdk';

/** The hello actor's settings: every field carries its platform annotations. */
export const HelloSettings = v.object({
  greeting: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(80),
      v.title('Greeting'),
      v.description('How the actor greets people'),
      platformField('behaviour', { managedBy: 'user', widget: 'text', order: 1, placeholder: 'Hello' }),
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
      platformField('behaviour', { managedBy: 'user', widget: 'slider', order: 2, step: 1 }),
    ),
    20,
  ),
  llm_model: v.optional(
    v.pipe(
      v.string(),
      v.title('Model'),
      v.description('Model name at the OpenAI-compatible server; empty uses the offline model'),
      platformField('model', { managedBy: 'platform', widget: 'text', order: 1, placeholder: 'gpt-4o-mini' }),
    ),
    '',
  ),
  llm_api_key: v.optional(
    v.pipe(
      v.string(),
      v.title('Model API key'),
      platformField('credentials', { managedBy: 'user', widget: 'password', order: 1, secret: true }),
    ),
  ),
});

/** The hello actor: a minimal actor that greets and answers with the offline model by default. */
const helloActor = {
  metadata: {
    name: 'Hello Actor',
    slug: 'hello-actor',
    version: '0.1.0',
    description: 'A minimal actor that greets you; answers with the offline model until one is configured.',
    domain: 'hello',
    tags: ['example', 'greeting'],
  },
  features: defaultActorFeatures,
  settings: HelloSettings,
  sections: [
    { id: 'behaviour', title: 'Behaviour', description: 'How the actor talks', order: 10 },
  ],
  restartRequired: ['llm_model'],
} satisfies ActorDefinition<typeof HelloSettings>;

export default helloActor;
