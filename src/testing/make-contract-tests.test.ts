import { describe, expect, it } from 'vitest';
import { createTestActor } from './create-test-actor.js';
import { makeContractTests, type ContractTestRegistrar } from './make-contract-tests.js';
import { checkTopicContract } from '../config/topic-contract.js';

/** Runs the factory with a recording registrar and returns each registered test's outcome. */
async function runFactory(openapi: unknown) {
  const tests: { name: string; body: () => Promise<void> }[] = [];
  const reports: string[] = [];
  const registrar: ContractTestRegistrar = {
    describe: (_name, body) => body(),
    it: (name, body) => tests.push({ name, body }),
    report: (message) => reports.push(message),
  };
  makeContractTests(openapi, registrar);
  const outcomes: Record<string, string> = {};
  for (const test of tests)
    outcomes[test.name] = await test.body().then(
      () => 'pass',
      (error: Error) => `fail: ${error.message}`,
    );
  return { outcomes, reports };
}

describe('makeContractTests', () => {
  it('passes for a real actor, reporting nothing', async () => {
    const app = await createTestActor();
    const { outcomes, reports } = await runFactory(async () => (await app.request('/openapi.json')).json());
    expect(Object.values(outcomes).every((outcome) => outcome === 'pass')).toBe(true);
    expect(Object.keys(outcomes)).toHaveLength(6);
    expect(reports).toEqual([]);
  });

  it('fails one test per missing required endpoint', async () => {
    const { outcomes } = await runFactory({ paths: { '/health': { get: {} }, '/metrics': { get: {} } } });
    expect(outcomes['exposes POST /agent/invoke (required)']).toMatch(/^fail: POST \/agent\/invoke is required/);
    expect(outcomes['exposes GET /ready (required)']).toMatch(/^fail/);
    expect(outcomes['exposes GET /health (required)']).toBe('pass');
    expect(outcomes['exposes GET /metrics (required)']).toBe('pass');
  });

  it('reports missing recommended endpoints without failing', async () => {
    const paths = {
      '/agent/invoke': { post: {} },
      '/health': { get: {} },
      '/ready': { get: {} },
      '/metrics': { get: {} },
      '/stats/:tenant_id': { get: {} },
    };
    const { outcomes, reports } = await runFactory({ paths });
    expect(Object.values(outcomes).every((outcome) => outcome === 'pass')).toBe(true);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('GET /stats,');
    expect(reports[0]).not.toContain('/stats/{tenant_id}');
    expect(reports[0]).toContain('PUT /settings');
  });

  it('fails when the retired configuration-schema route is served', async () => {
    const { outcomes } = await runFactory({ paths: { '/api/actor/configuration-schema': { get: {} } } });
    expect(outcomes['does not expose the retired /api/actor/configuration-schema']).toMatch(/^fail/);
  });

  it('refuses a document without paths', () => {
    expect(() => checkTopicContract({ openapi: '3.1.0' })).toThrow(/no `paths`/);
  });
});
