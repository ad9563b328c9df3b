import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { ActorMetadata } from '../../core/actor-definition.js';
import { IMAGE_MIME_TYPES } from '../../invoke/attachment-kind.js';

/** Where the A2A card is served: the well-known path of A2A 1.0 (`AGENT_CARD_PATH` of the SDK). */
export const A2A_CARD_PATH = '/.well-known/agent-card.json';

/** Where the JSON-RPC binding is served (`POST`), and the base of the HTTP+JSON one (`/message:send`, `/tasks/{id}`, …). */
export const A2A_JSON_RPC_PATH = '/a2a';

/** The protocol version the routes speak (the SDK's `A2A_PROTOCOL_VERSION`). */
const A2A_PROTOCOL_VERSION = '1.0';

/** The name of the API-key scheme in the card's `securitySchemes`. */
const API_KEY_SCHEME = 'apiKey';

/** The text types an attachment may have (the model reads them as text), as media types a card names. */
const TEXT_INPUT_MODES = ['text/plain', 'application/json', 'text/markdown', 'text/csv'];

/** A tool as the card reads it. */
export interface CardTool {
  readonly name: string;
  readonly description: string;
  readonly readOnly?: boolean;
}

/** What the card is derived from. */
export interface CardSource {
  readonly metadata: ActorMetadata;
  readonly tools: readonly CardTool[];
  /** The API key is checked (`API_KEY_ENABLED`): the card names the `X-API-Key` scheme and requires it. */
  readonly apiKey: boolean;
  /** `https://host[:port]`, as the client addressed the actor. */
  readonly origin: string;
}

/**
 * The actor's A2A agent card, derived from its definition as every published fact is: name,
 * description and version of the metadata; a `chat` skill and one skill per tool (tagged with
 * the domain and the actor's tags); streaming, no push notifications; the `X-API-Key` scheme
 * when the key is checked; the JSON-RPC and HTTP+JSON interfaces at `origin` + `/a2a`; text in and out, and the
 * image and text attachment types the model takes in.
 * @param source the definition's metadata, the tools, the key mode and the origin the client used
 */
export function a2aAgentCard(source: CardSource): AgentCard {
  const { metadata, tools, apiKey, origin } = source;
  // The domain is often one of the actor's tags too (the template's are): each tag once.
  const tags = [metadata.domain, ...metadata.tags];
  const skill = (id: string, name: string, description: string, extraTags: readonly string[]): AgentSkill => ({
    id,
    name,
    description,
    tags: [...new Set([...tags, ...extraTags])],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  });
  const requirement = { schemes: { [API_KEY_SCHEME]: { list: [] } } };
  return {
    name: metadata.name,
    description: metadata.description,
    version: metadata.version,
    supportedInterfaces: [
      {
        url: `${origin}${A2A_JSON_RPC_PATH}`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
      {
        url: `${origin}${A2A_JSON_RPC_PATH}`,
        protocolBinding: 'HTTP+JSON',
        tenant: '',
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: apiKey
      ? {
          [API_KEY_SCHEME]: {
            scheme: {
              $case: 'apiKeySecurityScheme',
              value: { description: 'The actor API key', location: 'header', name: 'X-API-Key' },
            },
          },
        }
      : {},
    securityRequirements: apiKey ? [requirement] : [],
    defaultInputModes: ['text/plain', ...TEXT_INPUT_MODES.slice(1), ...IMAGE_MIME_TYPES],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      skill(
        'chat',
        `Chat with ${metadata.name}`,
        `Sends a message to ${metadata.name}, which answers with its model and its tools. Messages of one contextId share their history.`,
        ['chat'],
      ),
      ...tools.map((tool) =>
        skill(tool.name, tool.name, tool.description, tool.readOnly === true ? ['read-only'] : []),
      ),
    ],
    signatures: [],
    ...(metadata.icon === undefined ? {} : { iconUrl: metadata.icon }),
  };
}
