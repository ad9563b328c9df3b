import { describe as vitestDescribe, it as vitestIt } from 'vitest';
import type { ActorApp } from '../app/create-actor-app.js';
import { openApiRoute } from '../routes/openapi.js';
import type { ContractTestRegistrar } from './make-contract-tests.js';

/** The parts of `src/platform/config.json` the consistency check compares with a built app. */
interface ServedParts {
  readonly contract?: { readonly endpoints?: readonly { readonly method: string; readonly path: string }[] };
  readonly panels?: readonly { readonly slug: string }[];
}

const routeLabel = (method: string, path: string) =>
  `${method === 'ALL' ? 'ANY' : method} ${path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`;
const pathOf = (label: string) => label.slice(label.indexOf(' ') + 1);

/**
 * Every difference between what a built actor serves and what its platform configuration
 * declares, as readable lines (none when they agree): a `contract.endpoints` route the app does
 * not mount, a route the app mounts that the configuration does not list, and a panel served
 * (the `slug` enum of `/panel/{slug}` in `/openapi.json`) but not in `panels`, or the other way
 * round. Routes are compared by method and path (`:param` as `{param}`); routes mounted for any
 * method (`app.use` middleware, the workflow proxy) count only where the configuration lists
 * `ANY` for their path, and a listed `ANY` covers every method the app mounts on its path.
 * @param app the actor, built with the environment its conditional surfaces need.
 * @param platformConfig the parsed `src/platform/config.json`.
 * @example
 * expect(await configDifferences(createApp(env), platformConfig)).toEqual([]);
 */
export async function configDifferences(app: ActorApp, platformConfig: unknown): Promise<string[]> {
  const config = (platformConfig ?? {}) as ServedParts;
  const declared = new Set(
    (config.contract?.endpoints ?? []).map((endpoint) => routeLabel(endpoint.method, endpoint.path)),
  );
  const served = new Set(
    app.routes
      .map((route) => routeLabel(route.method, route.path))
      .filter((label) => !label.startsWith('ANY ') || declared.has(label)),
  );
  // `ANY <path>` in the configuration covers every method the app mounts on that path (`/mcp`: POST and DELETE).
  const anyPaths = new Set([...declared].filter((label) => label.startsWith('ANY ')).map(pathOf));
  const servedPaths = new Set([...served].map(pathOf));
  const isServed = (label: string) => served.has(label) || (label.startsWith('ANY ') && servedPaths.has(pathOf(label)));
  const isDeclared = (label: string) => declared.has(label) || anyPaths.has(pathOf(label));
  const differences = [
    ...[...declared]
      .filter((label) => !isServed(label))
      .map((label) => `declared in contract.endpoints but not served: ${label}`),
    ...[...served]
      .filter((label) => !isDeclared(label))
      .map((label) => `served but not declared in contract.endpoints: ${label}`),
  ];
  const declaredPanels = new Set((config.panels ?? []).map((panel) => panel.slug));
  const servedPanels = new Set(await servedPanelSlugs(app));
  for (const slug of declaredPanels)
    if (!servedPanels.has(slug)) differences.push(`declared in panels but not served: ${slug}`);
  for (const slug of servedPanels)
    if (!declaredPanels.has(slug)) differences.push(`served but not declared in panels: ${slug}`);
  return differences;
}

async function servedPanelSlugs(app: ActorApp): Promise<string[]> {
  const document = (await (await app.request(openApiRoute.spec.path)).json()) as {
    paths?: Record<string, { get?: { parameters?: { name?: string; schema?: { enum?: unknown[] } }[] } }>;
  };
  const slug = document.paths?.['/panel/{slug}']?.get?.parameters?.find((parameter) => parameter.name === 'slug');
  return (slug?.schema?.enum ?? []).map(String);
}

/**
 * Registers one test that builds the actor and fails on any difference between the routes and
 * panels it serves and those its `src/platform/config.json` declares (see `configDifferences`),
 * so the platform relays exactly what the actor mounts. Build the app with the environment its
 * template options need (`MESH_KEY`, `WORKFLOW_BASE_URL`, OAuth variables) and without API keys.
 * @param app a function returning the actor (started or not)
 * @param platformConfig the parsed `src/platform/config.json`
 * @example
 * makeConfigConsistencyTests(() => createApp(testEnv), platformConfig);
 */
export function makeConfigConsistencyTests(
  app: () => ActorApp | Promise<ActorApp>,
  platformConfig: unknown,
  registrar: Pick<ContractTestRegistrar, 'describe' | 'it'> = { describe: vitestDescribe, it: vitestIt },
): void {
  registrar.describe('platform configuration and served surface', () => {
    registrar.it('serves exactly the routes and panels src/platform/config.json declares', async () => {
      const differences = await configDifferences(await app(), platformConfig);
      if (differences.length > 0)
        throw new Error(
          `the actor and its configuration disagree:\n${differences.map((line) => `  - ${line}`).join('\n')}`,
        );
    });
  });
}
