import type { ActorDefinition } from '../../src/core/actor-definition.js';

/** One route an actor's template options add to the core routes, as its `/openapi.json` documents it. */
export interface OptionRoute {
  /** Upper case, e.g. `GET`. */
  readonly method: string;
  /** The documented path; a parameter that takes a few known values (a panel's slug) is filled with each. */
  readonly path: string;
  /** The operation's summary. */
  readonly summary: string;
}

interface DocumentedPaths {
  readonly paths: Record<
    string,
    Record<string, { summary?: string; parameters?: { name: string; in: string; schema?: { enum?: unknown[] } }[] }>
  >;
}

/** Placeholders for the variables a surface needs at setup; the app is built to read its document, never started or served. */
const PLACEHOLDER_ENVIRONMENT = {
  DATABASE_URL: 'memory://',
  MESH_KEY: 'placeholder-mesh-key-for-the-route-list',
  WORKFLOW_BASE_URL: 'http://127.0.0.1:9',
};

/**
 * The routes an actor with this definition mounts beyond the core route table — the panels,
 * peer reads, workflow proxy and `/mcp` its options turn on — read from the `/openapi.json` of an
 * app built from the definition (never started), so a printed list is what the actor serves.
 * A path parameter whose schema lists its values (`/panel/{slug}`) is listed once per value.
 * @param definition the actor's definition (the default export of its `src/actor.ts`)
 * @returns the routes in the document's order, empty when the options add none
 */
export async function optionRoutes(definition: ActorDefinition): Promise<OptionRoute[]> {
  const [{ createActorApp }, { CORE_ROUTES }, { silentLogger }] = await Promise.all([
    import('../../src/app/create-actor-app.js'),
    import('../../src/routes/core-routes.js'),
    import('../../src/log/logger.js'),
  ]);
  const peerReads = Object.fromEntries((definition.peerReads ?? []).map((read) => [read.path, () => null]));
  const app = createActorApp({ definition, env: PLACEHOLDER_ENVIRONMENT, peerReads, logger: silentLogger });
  const document = (await (await app.request('/openapi.json')).json()) as DocumentedPaths;
  const corePaths = new Set(CORE_ROUTES.map((route) => route.spec.path));
  return Object.entries(document.paths)
    .filter(([path]) => !corePaths.has(path))
    .flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        filledPaths(path, operation.parameters ?? []).map((filled) => ({
          method: method.toUpperCase(),
          path: filled,
          summary: operation.summary ?? '',
        })),
      ),
    );
}

/** `path` with each path parameter that lists its values replaced by each value in turn. */
function filledPaths(
  path: string,
  parameters: readonly { name: string; in: string; schema?: { enum?: unknown[] } }[],
): string[] {
  let paths = [path];
  for (const parameter of parameters) {
    const values = parameter.in === 'path' ? parameter.schema?.enum : undefined;
    if (values === undefined || values.length === 0) continue;
    paths = paths.flatMap((partial) => values.map((value) => partial.replace(`{${parameter.name}}`, String(value))));
  }
  return paths;
}
