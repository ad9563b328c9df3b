import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createTestActor } from '../testing/create-test-actor.js';

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const available = promtool.status === 0;
if (!available && process.env.CI)
  throw new Error('promtool is missing: install Debian package prometheus (.ci/run does)');
if (!available)
  console.warn('promtool not installed: skipping the exposition-format check (apt-get install prometheus)');

describe.runIf(available)('GET /metrics under promtool', () => {
  it('passes `promtool check metrics`', async () => {
    const app = await createTestActor();
    await app.request('/agent/invoke', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user_identifier: 'u', session_id: 's', message: 'hi' }),
    });
    await app.request('/nope');
    const text = await (await app.request('/metrics')).text();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
