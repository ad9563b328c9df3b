import { describe as vitestDescribe, it as vitestIt } from 'vitest';
import {
  checkTopicContract,
  endpointLabel,
  RECOMMENDED_ENDPOINTS,
  REQUIRED_ENDPOINTS,
} from '../config/topic-contract.js';

/** Where the OpenAPI document comes from: the document, or a function that fetches it. */
export type OpenApiSource = unknown | (() => unknown | Promise<unknown>);

/** Test-registration functions; vitest's by default, replaceable to test the factory itself. */
export interface ContractTestRegistrar {
  /** Groups tests (vitest's `describe` by default). */
  readonly describe: (name: string, body: () => void) => void;
  /** Declares one test (vitest's `it` by default). */
  readonly it: (name: string, body: () => Promise<void>) => void;
  /** Where the report of missing recommended endpoints goes (default `console.warn`). */
  readonly report?: (message: string) => void;
}

async function loadOpenApi(source: OpenApiSource): Promise<unknown> {
  return typeof source === 'function' ? await (source as () => unknown)() : source;
}

/**
 * Registers the topic contract v1.0 tests: one failing test per missing required endpoint
 * (`POST /agent/invoke`, `GET /health`, `GET /ready`, `GET /metrics`); missing recommended
 * endpoints are reported but pass; the retired `/api/actor/configuration-schema` fails.
 * @param openapi the OpenAPI document, or a function returning it
 * @example
 * makeContractTests(async () => (await app.request('/openapi.json')).json());
 */
export function makeContractTests(
  openapi: OpenApiSource,
  registrar: ContractTestRegistrar = { describe: vitestDescribe, it: vitestIt },
): void {
  const report = registrar.report ?? ((message: string) => console.warn(message));
  let loaded: Promise<ReturnType<typeof checkTopicContract>> | undefined;
  const check = () => (loaded ??= loadOpenApi(openapi).then(checkTopicContract));
  registrar.describe('actor topic contract v1.0', () => {
    for (const endpoint of REQUIRED_ENDPOINTS) {
      registrar.it(`exposes ${endpointLabel(endpoint)} (required)`, async () => {
        const result = await check();
        if (result.missingRequired.includes(endpoint)) {
          throw new Error(
            `${endpointLabel(endpoint)} is required by topic contract v1.0 but the OpenAPI document does not describe it`,
          );
        }
      });
    }
    registrar.it(`reports missing recommended endpoints (${RECOMMENDED_ENDPOINTS.length} checked)`, async () => {
      const result = await check();
      if (result.missingRecommended.length > 0) {
        report(
          `topic contract v1.0: recommended endpoints missing: ${result.missingRecommended.map(endpointLabel).join(', ')}`,
        );
      }
    });
    registrar.it('does not expose the retired /api/actor/configuration-schema', async () => {
      const result = await check();
      if (result.retiredPresent.length > 0)
        throw new Error('/api/actor/configuration-schema is retired: serve /api/actor/platform-config instead');
    });
  });
}
