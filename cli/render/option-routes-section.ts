import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type GeneratedSectionMarkers, withGeneratedSection } from '../../src/core/generated-section.js';
import { docsRoute } from '../../src/routes/openapi.js';
import type { OptionRoute } from './option-routes.js';

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
export async function writeOptionRoutesSection(actorDir: string, routes: readonly OptionRoute[]): Promise<boolean> {
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
