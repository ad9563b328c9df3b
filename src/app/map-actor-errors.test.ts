import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import type { ActorEnv } from '../context/actor-context.js';
import { ActorError } from '../core/actor-error.js';
import { silentLogger } from '../log/logger.js';
import { mapActorErrors } from './map-actor-errors.js';

function appThrowing(error: unknown): Hono<ActorEnv> {
  const app = new Hono<ActorEnv>();
  app.get('/fail', () => {
    throw error;
  });
  mapActorErrors(app, silentLogger);
  return app;
}

async function problemOf(error: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await appThrowing(error).request(
    '/fail',
    {},
    { requestId: 'req-7', runtime: {}, keepInFlight: () => () => {} },
  );
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.headers.get('x-request-id')).toBe('req-7');
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('mapActorErrors', () => {
  it('answers an ActorError with its own problem, catalogue code or actor code alike', async () => {
    expect(await problemOf(new ActorError('draining', { detail: 'bye' }))).toEqual({
      status: 503,
      body: {
        type: 'https://actorkit.dev/problems/draining',
        title: 'The actor is shutting down',
        status: 503,
        detail: 'bye',
        code: 'draining',
        request_id: 'req-7',
      },
    });
    expect(await problemOf(new ActorError(409, 'not_now', 'Not now'))).toMatchObject({
      status: 409,
      body: { code: 'not_now', title: 'Not now' },
    });
  });

  it("answers the framework's own refusal with its status, the catalogue's title and its message as detail", async () => {
    expect(await problemOf(new HTTPException(418, { message: 'no coffee' }))).toMatchObject({
      status: 418,
      body: { status: 418, code: 'http_error', title: 'Request failed', detail: 'no coffee' },
    });
    expect(await problemOf(new HTTPException(413, { message: 'too big' }))).toMatchObject({
      status: 413,
      body: { code: 'payload_too_large', title: 'Payload too large', detail: 'too big' },
    });
  });

  it('answers anything else with a 500 internal_error naming the request id, without the message', async () => {
    const { status, body } = await problemOf(new Error('secret database password in here'));
    expect(status).toBe(500);
    expect(body).toEqual({
      type: 'https://actorkit.dev/problems/internal-error',
      title: 'Internal server error',
      status: 500,
      detail: 'Something went wrong; quote request id req-7 when reporting it',
      code: 'internal_error',
      request_id: 'req-7',
    });
  });
});
