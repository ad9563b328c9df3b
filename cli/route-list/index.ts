/**
 * The route list of an actor's README.md: the routes its template options add to those every
 * actor serves, read from the app its definition builds, and the section between two markers
 * that `new` fills and `validate --write` keeps up to date.
 * @module
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createActorApp, docsRoute, openApiRoute, silentLogger, type ActorDefinition } from '../../src/index.js';
import { type GeneratedSectionMarkers, loadActorSource, withGeneratedSection } from '../../src/sdk/index.js';

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

/** The template options that mount surfaces, all off: what every actor serves. */
const OPTIONS_OFF = {
  includePanel: false,
  fleetMesh: false,
  integrationType: 'none',
  exposeMcp: false,
  exposeAgUi: false,
  exposeA2a: false,
} as const satisfies Partial<ActorDefinition['features']>;

/**
 * Placeholders for the variables a surface needs at setup (an in-memory store, a mesh key, a
 * workflow URL): for an app built to read its document, or to answer eval cases, never served.
 */
export const PLACEHOLDER_ENVIRONMENT = {
  DATABASE_URL: 'memory://',
  MESH_KEY: 'placeholder-mesh-key-for-the-route-list',
  WORKFLOW_BASE_URL: 'http://127.0.0.1:9',
};

/**
 * The routes an actor with this definition mounts beyond those every actor serves — the panels,
 * peer reads, workflow proxy, `/mcp` and `/agent/ag-ui` its options turn on — read from the
 * `/openapi.json` of an app built from the definition (never started), less those of the same
 * app with every option off, so a printed list is what the actor serves.
 * A path parameter whose schema lists its values (`/panel/{slug}`) is listed once per value.
 * @param definition the actor's definition (the default export of its `src/actor.ts`)
 * @returns the routes in the document's order, empty when the options add none
 */
export async function optionRoutes(definition: ActorDefinition): Promise<OptionRoute[]> {
  const peerReads = Object.fromEntries((definition.peerReads ?? []).map((read) => [read.path, () => null]));
  const documentOf = async (options: ActorDefinition): Promise<DocumentedPaths> => {
    const app = createActorApp({ definition: options, env: PLACEHOLDER_ENVIRONMENT, peerReads, logger: silentLogger });
    return (await (await app.request(openApiRoute.spec.path)).json()) as DocumentedPaths;
  };
  const document = await documentOf(definition);
  // A core route a definition option mounts (`/agent/ag-ui`) is the option's, not every actor's.
  const everyActors = await documentOf({ ...definition, features: { ...definition.features, ...OPTIONS_OFF } });
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => everyActors.paths[path]?.[method] === undefined)
      .flatMap(([method, operation]) =>
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

/** The comments around the route list in an actor's README.md, which `new` and `validate --write` fill. */
const OPTION_ROUTES_MARKERS: GeneratedSectionMarkers = {
  start: '<!-- actorkit:option-routes:start -->',
  end: '<!-- actorkit:option-routes:end -->',
};

/** The README the route list is written into, inside the actor folder. */
export const OPTION_ROUTES_README = 'README.md';

/**
 * The route list as `new` prints it: one line per route the options add (method, path, summary),
 * or one line saying they add none.
 * @param routes what {@link optionRoutes} found
 */
export function optionRoutesText(routes: readonly OptionRoute[]): string {
  const docs = docsRoute.spec.path;
  if (routes.length === 0)
    return `Routes: those every actor serves (its ${docs} page lists them); your options add none.`;
  const methodWidth = Math.max(...routes.map((route) => route.method.length));
  const pathWidth = Math.max(...routes.map((route) => route.path.length));
  const lines = routes.map((route) =>
    `  ${route.method.padEnd(methodWidth)} ${route.path.padEnd(pathWidth)}  ${route.summary}`.trimEnd(),
  );
  return [`Routes your options add to those every actor serves (its ${docs} page lists them all):`, ...lines].join(
    '\n',
  );
}

/** The README's route section before it is filled: the two markers, for the template to render where the list goes. */
export const EMPTY_OPTION_ROUTES_SECTION = `${OPTION_ROUTES_MARKERS.start}\n${OPTION_ROUTES_MARKERS.end}`;

/**
 * Writes the route list into the actor's README.md between its markers; a README without them
 * (the user removed them, or an older template) is left alone.
 * @param actorDir the actor folder
 * @param routes what {@link optionRoutes} found
 * @returns whether README.md was changed
 */
async function writeOptionRoutesSection(actorDir: string, routes: readonly OptionRoute[]): Promise<boolean> {
  const path = join(actorDir, OPTION_ROUTES_README);
  if (!existsSync(path)) return false;
  const readme = await readFile(path, 'utf8');
  if (!readme.includes(OPTION_ROUTES_MARKERS.start) || !readme.includes(OPTION_ROUTES_MARKERS.end)) return false;
  const written = withGeneratedSection(
    readme,
    OPTION_ROUTES_MARKERS,
    `\`\`\`text\n${optionRoutesText(routes)}\n\`\`\``,
    OPTION_ROUTES_README,
  );
  if (written === readme) return false;
  await writeFile(path, written);
  return true;
}

/** What {@link refreshOptionRoutes} found and did. */
export interface RefreshedOptionRoutes {
  /** The routes the actor's options add. */
  readonly routes: readonly OptionRoute[];
  /** Whether README.md's route section changed. */
  readonly written: boolean;
}

/**
 * Reads the definition of the actor in `actorDir` (its `src/actor.ts`, whose imports must
 * resolve), lists the routes its options add and writes them into its README.md between the
 * markers, so the list stays what the actor serves after `new`, `update` and any change of the
 * definition followed by `validate --write`.
 * @param actorDir the actor folder
 */
export async function refreshOptionRoutes(actorDir: string): Promise<RefreshedOptionRoutes> {
  const routes = await optionRoutes((await loadActorSource(actorDir)).definition);
  return { routes, written: await writeOptionRoutesSection(actorDir, routes) };
}
