/**
 * Writes `src/routes/core-routes.gen.ts`, the list of the routes declared under `src/routes/` and `src/features/<name>/`,
 * then `src/config/emit/core-contract-endpoints.gen.ts`, the contract endpoints those routes
 * declare (the configuration layer cannot import the routes). `npm run routes` (and `npm run
 * build`, before compiling); a test fails when either file differs.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CORE_CONTRACT_ENDPOINTS_GEN, coreContractEndpointsSource } from './core-contract-endpoints-source.js';
import { CORE_ROUTES_GEN, coreRoutesSource } from './core-routes-source.js';

const root = new URL('../', import.meta.url);

function keep(file: string, text: string, what: string): void {
  const target = new URL(file, root);
  if (existsSync(target) && readFileSync(target, 'utf8') === text) {
    console.log(`${file}: ${what} is up to date`);
  } else {
    writeFileSync(target, text);
    console.log(`${file}: ${what} was rewritten`);
  }
}

keep(CORE_ROUTES_GEN, coreRoutesSource(fileURLToPath(new URL('src/routes/', root))), 'the route list');
// Loaded only now: the table imports the list just written.
const { CORE_ROUTES } = await import('../src/routes/core-routes.js');
keep(CORE_CONTRACT_ENDPOINTS_GEN, coreContractEndpointsSource(CORE_ROUTES), 'the contract-endpoint list');
