// Two actors on loopback read each other through the fleet mesh; wrong and missing keys get 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../src/adapter/node/index.js';
import { defaultActorFeatures, type ActorDefinition } from '../../src/core/actor-definition.js';
import { createActorApp } from '../../src/app/create-actor-app.js';
import { silentLogger } from '../../src/log/logger.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createPeerClient, meshRouter, PeerRequestError, type PeerRoute } from '../../src/surfaces/mesh/index.js';
import { testActorDefinition } from '../../src/testing/create-test-actor.js';
import { deadPort, serveOnLoopback } from './loopback.js';

const GROUP_KEY = 'group-key-2f9c41d07b6e4a1f';

function definitionFor(slug: string, domain: string): ActorDefinition {
  return {
    ...testActorDefinition,
    metadata: { ...testActorDefinition.metadata, slug, name: slug, domain },
    features: { ...defaultActorFeatures, fleetMesh: true },
  };
}

function meshActor(slug: string, domain: string, routes: PeerRoute[], meshKey = GROUP_KEY) {
  return createActorApp({
    definition: definitionFor(slug, domain),
    env: { MESH_KEY: meshKey, INSTANCE_ID: `${slug}-1` },
    logger: silentLogger,
    store: new MemoryStore(),
    routers: [meshRouter({ meshKey, routes })],
  });
}

let weather: ServeHandle;
let calendar: ServeHandle;
let stranger: ServeHandle;
let releaseHang: () => void = () => {};
const hang = new Promise<void>((resolve) => (releaseHang = resolve));

const client = (baseUrl: string, domain: string, meshKey = GROUP_KEY, timeoutMs = 5_000) =>
  createPeerClient({ baseUrl, domain, meshKey, timeoutMs });

beforeAll(async () => {
  weather = await serveOnLoopback(
    meshActor('weather-actor', 'weather', [
      {
        path: '/forecast/:city',
        handle: ({ params, query }) => ({ city: params.city, days: Number(query.get('days') ?? 1), temp_c: 4 }),
      },
      { path: '/hang', handle: () => hang.then(() => ({ late: true })) },
    ]),
  );
  const deadUrl = `http://127.0.0.1:${await deadPort()}`;
  calendar = await serveOnLoopback(
    meshActor('calendar-actor', 'calendar', [
      {
        // A peer read that itself reads a sibling: the weather for an appointment.
        path: '/agenda',
        handle: async ({ request }) => {
          const forecast = await client(weather.url, 'weather').get('/forecast/oslo', {
            requestId: request.headers.get('x-request-id') ?? undefined,
          });
          return { meeting: 'standup', forecast };
        },
      },
      { path: '/agenda-offline', handle: () => client(deadUrl, 'weather').get('/forecast/oslo') },
    ]),
  );
  stranger = await serveOnLoopback(meshActor('stranger-actor', 'stranger', [], 'another-groups-key-0000'));
});

afterAll(async () => {
  releaseHang();
  await Promise.all([weather?.close(), calendar?.close(), stranger?.close()]);
});

describe('fleet mesh on loopback', () => {
  it('each actor passes the other one’s peer check', async () => {
    expect(await client(weather.url, 'weather').check()).toEqual({
      status: 'ok',
      actor: 'weather-actor',
      version: '1.2.3',
      domain: 'weather',
      instance_id: 'weather-actor-1',
      phase: 'ready',
    });
    expect(await client(calendar.url, 'calendar').check()).toMatchObject({
      status: 'ok',
      actor: 'calendar-actor',
      domain: 'calendar',
    });
  });

  it('reads a peer route, and a peer route that reads its sibling', async () => {
    expect(await client(weather.url, 'weather').get('forecast/bergen', { query: { days: 3 } })).toEqual({
      city: 'bergen',
      days: 3,
      temp_c: 4,
    });
    expect(await client(calendar.url, 'calendar').get('/agenda')).toEqual({
      meeting: 'standup',
      forecast: { city: 'oslo', days: 1, temp_c: 4 },
    });
  });

  it('answers 401 to a missing or wrong key', async () => {
    const missing = await fetch(`${weather.url}/api/weather/_peer_check`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: 'missing_mesh_key' });
    const wrong = await fetch(`${weather.url}/api/weather/forecast/oslo`, {
      headers: { 'X-Mesh-Key': `${GROUP_KEY}0` },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'invalid_mesh_key' });
  });

  it('turns a refused key into peer_rejected, and an actor of another group cannot read', async () => {
    const error = await client(weather.url, 'weather', 'not-the-group-key')
      .check()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PeerRequestError);
    expect(error).toMatchObject({ code: 'peer_rejected', peerStatus: 401, peerCode: 'invalid_mesh_key' });
    await expect(client(stranger.url, 'stranger').check()).rejects.toMatchObject({ code: 'peer_rejected' });
    expect(await client(stranger.url, 'stranger', 'another-groups-key-0000').check()).toMatchObject({ status: 'ok' });
  });

  it('passes a peer failure on as a 502 problem, and times out a peer that hangs', async () => {
    const offline = await fetch(`${calendar.url}/api/calendar/agenda-offline`, {
      headers: { 'X-Mesh-Key': GROUP_KEY },
    });
    expect(offline.status).toBe(502);
    expect(await offline.json()).toMatchObject({ code: 'peer_unavailable', status: 502 });
    await expect(client(weather.url, 'weather', GROUP_KEY, 200).get('hang')).rejects.toMatchObject({
      code: 'peer_timeout',
      status: 504,
    });
  });

  it('keeps peer routes absent on an actor without the mesh', async () => {
    const plain = createActorApp({
      definition: testActorDefinition,
      env: {},
      logger: silentLogger,
      store: new MemoryStore(),
    });
    expect((await plain.request('/api/test/_peer_check', { headers: { 'X-Mesh-Key': GROUP_KEY } })).status).toBe(404);
  });
});
