import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRuntime, RUNTIMES_UNDER_TEST } from './runtimes-under-test.js';
import { spawnActor, type SpawnedActor, waitUntilReady } from './spawn-actor.js';

// The API key as a standalone actor checks it at the fetch edge, over real HTTP under every
// runtime: Node reads the header from its raw header list (any case), the others from the Fetch
// request. The in-process tests (src/app/api-key-refusal.test.ts) cannot see that difference.
for (const runtime of RUNTIMES_UNDER_TEST) {
  describe(`the API key over HTTP on ${runtime.name}`, () => {
    let actor: SpawnedActor;

    beforeAll(async () => {
      checkRuntime(runtime);
      actor = await spawnActor(runtime, { API_KEY_ENABLED: 'true', API_KEY: 'old-key,new-key' });
      await waitUntilReady(actor);
    }, 60_000);
    afterAll(async () => {
      await actor?.dispose();
    });

    const get = async (path: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${actor.baseUrl}${path}`, { headers });
      return {
        status: response.status,
        challenge: response.headers.get('www-authenticate'),
        body: await response.text(),
      };
    };

    it('lets the open paths through without a key, and a query with percent-encoding too', async () => {
      expect((await get('/health')).status).toBe(200);
      expect((await get('/health?probe=a%20b')).status).toBe(200);
      expect((await get('/%68ealth')).status).toBe(401);
    });

    it('asks for the key elsewhere, reading its header in any case, and refuses a wrong one', async () => {
      const missing = await get('/stats');
      expect(missing).toMatchObject({ status: 401, challenge: 'ApiKey header="X-API-Key"' });
      expect(JSON.parse(missing.body)).toMatchObject({ code: 'missing_api_key' });
      expect(JSON.parse((await get('/stats', { 'X-API-Key': 'guess' })).body)).toMatchObject({
        code: 'invalid_api_key',
      });
      for (const [name, key] of [
        ['X-API-Key', 'old-key'],
        ['x-api-key', 'new-key'],
        ['X-Api-KEY', 'old-key'],
      ]) {
        expect((await get('/stats', { [name!]: key! })).status, name).toBe(200);
      }
    });

    it('counts a refused key under its route, and a wrong method under /*', async () => {
      await get('/stats');
      await fetch(`${actor.baseUrl}/stats`, { method: 'DELETE' });
      const metrics = (await get('/metrics')).body;
      expect(metrics).toMatch(/http_requests_total\{method="GET",route="\/stats",status="401",ok="false"\} [1-9]/);
      expect(metrics).toContain('http_requests_total{method="DELETE",route="/*",status="405",ok="false"} 1');
    });
  });
}
