import { describe, expect, it } from 'vitest';
import { DomainClient, type DomainHealth } from '../../src/sdk/domain-client/domain-client.js';
import { silentLogger } from '../../src/log/logger.js';
import { createTestActor } from '../../src/testing/create-test-actor.js';

// A domain client's `healthCheck()` feeds `/health`: it runs in the background with a
// time-out, `/health` reports its last known state, and a failing or hanging check makes
// `/health` `degraded` — a 200, never a 5xx — and leaves `/ready` alone.

/** A real domain client whose service answers, fails, or never answers, as the test says. */
class WeatherClient extends DomainClient<{ readonly weather_url: string }> {
  behaviour: 'pass' | 'fail' | 'hang' = 'pass';
  calls = 0;

  override async healthCheck(): Promise<DomainHealth> {
    this.calls += 1;
    if (this.behaviour === 'fail') throw new Error('weather service answered 503');
    if (this.behaviour === 'hang') return new Promise<DomainHealth>(() => {});
    return { status: 'pass', output: `weather service at ${this.settings.weather_url} answers` };
  }
}

function weatherClient(behaviour: WeatherClient['behaviour']): WeatherClient {
  const client = new WeatherClient({ weather_url: 'http://weather.test' }, { logger: silentLogger });
  client.behaviour = behaviour;
  return client;
}

async function health(app: { request: (path: string) => Response | Promise<Response> }) {
  const response = await app.request('/health');
  return { status: response.status, body: await response.json() };
}

/** Polls `/health` until `done` accepts its body (the checks run in the background). */
async function healthWhen(
  app: { request: (path: string) => Response | Promise<Response> },
  done: (body: { checks: Record<string, { status: string }> }) => boolean,
) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const answer = await health(app);
    if (done(answer.body) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('domain client health checks on /health', () => {
  it('runs the check and reports a passing one, status ok', async () => {
    const client = weatherClient('pass');
    const app = await createTestActor({ healthChecks: { weather: () => client.healthCheck() } });
    const { status, body } = await healthWhen(app, (b) => b.checks.weather?.status === 'pass');
    expect(client.calls).toBeGreaterThanOrEqual(1);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      checks: {
        database: { status: 'pass' },
        weather: { status: 'pass', output: 'weather service at http://weather.test answers' },
      },
    });
  });

  it('turns a failing check into degraded, 200, with the reason, and /ready stays 200', async () => {
    const client = weatherClient('fail');
    const app = await createTestActor({ healthChecks: { weather: () => client.healthCheck() } });
    const { status, body } = await healthWhen(app, (b) => b.checks.weather?.status === 'fail');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'degraded',
      checks: { weather: { status: 'fail', output: 'weather service answered 503' } },
    });
    expect((await app.request('/ready')).status).toBe(200);
  });

  it('times a hanging check out: degraded, 200, naming the time-out', async () => {
    const client = weatherClient('hang');
    const app = await createTestActor({
      env: { HEALTH_CHECK_TIMEOUT_MS: '50' },
      healthChecks: { weather: () => client.healthCheck() },
    });
    const { status, body } = await healthWhen(app, (b) => b.checks.weather?.status === 'fail');
    expect(client.calls).toBeGreaterThanOrEqual(1);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'degraded',
      checks: { weather: { status: 'fail', output: 'health check timed out after 50 ms' } },
    });
  });

  it('answers /health at once while a check hangs', async () => {
    const client = weatherClient('hang');
    const app = await createTestActor({
      env: { HEALTH_CHECK_TIMEOUT_MS: '600000' },
      healthChecks: { weather: () => client.healthCheck() },
    });
    const started = Date.now();
    const { status, body } = await health(app);
    // A generous ceiling that proves /health does not wait on the check (it would wait 10 minutes).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(client.calls).toBe(1);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'degraded',
      checks: { weather: { status: 'warn', output: 'not checked yet' } },
    });
  });

  it('reports a check that throws synchronously as failing, not as a crash', async () => {
    const app = await createTestActor({
      healthChecks: {
        weather: () => {
          throw new Error('no weather_url');
        },
      },
    });
    const { status, body } = await healthWhen(app, (b) => b.checks.weather?.status === 'fail');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'degraded',
      checks: { weather: { status: 'fail', output: 'no weather_url' } },
    });
  });
});
