// docs/writing-an-actor.md, run: the domain client (step 3) and the tool (step 4) exactly as the
// page writes them, taken from its blocks, against a real HTTP forecast service on loopback —
// the answer, then the fallback and its logged cause once the service is gone, and the health
// check's pass and fail. The docs test type-checks every block; this one runs those two.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorTool } from '../../src/agent/actor-tool.js';
import { createLogger, createMemorySink } from '../../src/log/logger.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';
import { REPOSITORY_ROOT } from '../support/built-package.js';
import { docExamples } from './doc-examples.js';

const PAGE = 'docs/writing-an-actor.md';
const scratch = mkdtempSync(join(REPOSITORY_ROOT, 'test', 'docs', '.writing-an-actor-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The page's TypeScript block that declares `marker`, written to a module in the scratch folder. */
function pageModule(marker: string, name: string): string {
  const blocks = docExamples(REPOSITORY_ROOT, PAGE).filter(
    (block) => block.lang === 'ts' && block.code.includes(marker),
  );
  expect(blocks, `${PAGE} has one block with ${marker}`).toHaveLength(1);
  const file = join(scratch, `${name}.ts`);
  writeFileSync(file, blocks[0]!.code);
  return file;
}

interface Forecast {
  readonly city: string;
  readonly temp_c: number | null;
}
interface WeatherClientClass {
  new (
    settings: { weather_url: string },
    options: { logger: ReturnType<typeof createLogger> },
  ): {
    forecast(city: string): Promise<Forecast>;
    healthCheck(): Promise<{ status: string; output: string }>;
  };
}

let service: Server;
let serviceUrl: string;

beforeAll(async () => {
  service = createServer((request, response) => {
    const city = new URL(request.url ?? '/', 'http://x').searchParams.get('city');
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ city, temp_c: 7 }));
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});

describe('Writing an actor, as the page writes it', () => {
  it('asks the service through the tool; once the service is gone, falls back to null and logs why', async () => {
    const { WeatherClient } = (await import(pageModule('class WeatherClient', 'client'))) as {
      WeatherClient: WeatherClientClass;
    };
    const { weatherTools } = (await import(pageModule('function weatherTools', 'tools'))) as {
      weatherTools: (client: () => InstanceType<WeatherClientClass>) => ActorTool[];
    };
    const sink = createMemorySink();
    const client = new WeatherClient({ weather_url: serviceUrl }, { logger: createLogger({ sink }) });
    const app = await createTestActor({ tools: weatherTools(() => client) });
    const ask = async () => {
      const response = await app.request('/agent/invoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          user_identifier: 'tester',
          session_id: 'weather-1',
          message: 'use tool weather_forecast with {"city": "Oslo"}',
        }),
      });
      expect(response.status).toBe(200);
      return (await response.json()).tool_calls;
    };

    expect(await ask()).toMatchObject([
      { name: 'weather_forecast', status: 'ok', output: { city: 'Oslo', temp_c: 7 } },
    ]);
    expect(await client.healthCheck()).toEqual({ status: 'pass', output: `${serviceUrl} answers` });

    await new Promise((resolve) => service.close(resolve));
    expect(await ask()).toMatchObject([{ status: 'ok', output: { city: 'Oslo', temp_c: null } }]);
    const warning = sink.records.find((record) => record.event === 'safe_call_failed');
    expect(warning).toMatchObject({ action: 'fetch_forecast', reason: 'error' });
    expect((warning!.error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
    await expect(client.healthCheck()).rejects.toThrow('fetch failed');
  });
});
