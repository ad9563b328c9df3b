import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { platformCredentials } from './platform-credentials.js';

const stateDir = mkdtempSync(join(tmpdir(), 'actorkit-platform-credentials-'));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

describe('platformCredentials', () => {
  it('generates the owner token and an edge key per instance once, keeps them 0600, and gives them again on the next run', async () => {
    const first = await platformCredentials(stateDir, ['news', 'weather']);
    expect(first.ownerToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([...first.edgeKeys.keys()]).toEqual(['news', 'weather']);
    for (const key of first.edgeKeys.values()) expect(key).toMatch(/^akedge_[A-Za-z0-9_-]{43}$/);
    expect(first.edgeKeys.get('news')).not.toBe(first.edgeKeys.get('weather'));
    for (const file of [first.ownerTokenFile, first.edgeKeyFile('news'), first.edgeKeyFile('weather')])
      expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(stateDir, 'edge-keys')).mode & 0o777).toBe(0o700);
    expect(readFileSync(first.edgeKeyFile('news'), 'utf8').trim()).toBe(first.edgeKeys.get('news'));

    const again = await platformCredentials(stateDir, ['news', 'weather', 'tides']);
    expect(again.ownerToken).toBe(first.ownerToken);
    expect(again.edgeKeys.get('news')).toBe(first.edgeKeys.get('news'));
    expect(again.edgeKeys.get('tides')).toMatch(/^akedge_/);
  });

  it('refuses a kept file others may read, naming it', async () => {
    const file = join(stateDir, 'owner-token');
    chmodSync(file, 0o644);
    await expect(platformCredentials(stateDir, [])).rejects.toMatchObject({
      code: 'secrets_file_exposed',
      message: `the owner token file ${file} is readable by others (mode 0644): run chmod 600 ${file}`,
    });
    chmodSync(file, 0o600);
  });
});
