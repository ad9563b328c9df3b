import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { meshGroupKey } from './mesh-group-key.js';
import type { SecretsFile } from './secrets-file.js';

const stateDir = mkdtempSync(join(tmpdir(), 'actorkit-mesh-keys-'));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const noSecrets: SecretsFile = { path: join(stateDir, 'secrets.env'), present: false, values: new Map() };

describe('meshGroupKey', () => {
  it('generates a group key once, keeps it with mode 0600 and gives it again on later runs', async () => {
    const first = await meshGroupKey(stateDir, 'default', noSecrets);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(join(stateDir, 'mesh-keys', 'default.key')).mode & 0o777).toBe(0o600);
    expect(await meshGroupKey(stateDir, 'default', noSecrets)).toBe(first);
  });

  it('gives each group its own key', async () => {
    expect(await meshGroupKey(stateDir, 'finance', noSecrets)).not.toBe(
      await meshGroupKey(stateDir, 'default', noSecrets),
    );
  });

  it("takes the default group's key from MESH_KEY of the secrets file, and only that group's", async () => {
    const secrets: SecretsFile = {
      ...noSecrets,
      present: true,
      values: new Map([['MESH_KEY', 'from-the-secrets-file-0123456789']]),
    };
    expect(await meshGroupKey(stateDir, 'default', secrets)).toBe('from-the-secrets-file-0123456789');
    expect(await meshGroupKey(stateDir, 'finance', secrets)).not.toBe('from-the-secrets-file-0123456789');
  });
});
