/**
 * Writes `src/routes/core-routes.gen.ts`, the list of the routes declared under `src/routes/`.
 * `npm run routes` (and `npm run build`, before compiling); a test fails when the file differs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CORE_ROUTES_GEN, coreRoutesSource } from './core-routes-source.js';

const root = new URL('../', import.meta.url);
const target = new URL(CORE_ROUTES_GEN, root);
const text = coreRoutesSource(fileURLToPath(new URL('src/routes/', root)));
if (existsSync(target) && readFileSync(target, 'utf8') === text) {
  console.log(`${CORE_ROUTES_GEN}: the route list is up to date`);
} else {
  writeFileSync(target, text);
  console.log(`${CORE_ROUTES_GEN}: the route list was rewritten`);
}
