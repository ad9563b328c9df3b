import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../cli/library.js';
import { readSecretsFile } from './secrets-file.js';

const dir = mkdtempSync(join(tmpdir(), 'actorkit-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function secretsFile(name: string, content: string, mode: number): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

/** The refusal a read ends with (the test fails when it succeeds). */
function refusal(read: Promise<unknown>): Promise<CliError> {
  return read.then(
    () => expect.fail('expected a refusal'),
    (thrown: unknown) => {
      expect(thrown).toBeInstanceOf(CliError);
      return thrown as CliError;
    },
  );
}

describe('readSecretsFile', () => {
  it('reads NAME=value lines, with comments, export and quotes', async () => {
    const path = secretsFile(
      'ok.env',
      '# model\nLLM_API_KEY=sk-one\nexport WEATHER_TOKEN="two words"\n\nQUOTED=\'x=y\'\n',
      0o600,
    );
    const secrets = await readSecretsFile(path, true);
    expect(Object.fromEntries(secrets.values)).toEqual({
      LLM_API_KEY: 'sk-one',
      WEATHER_TOKEN: 'two words',
      QUOTED: 'x=y',
    });
    expect(secrets.present).toBe(true);
  });

  it('refuses a file group or others may read, with one line saying how to fix it', async () => {
    const path = secretsFile('open.env', 'LLM_API_KEY=sk-never-shown\n', 0o644);
    const error = await refusal(readSecretsFile(path, false));
    expect(error.code).toBe('secrets_file_exposed');
    expect(error.message).toBe(`the secrets file ${path} is readable by others (mode 0644): run chmod 600 ${path}`);
    expect(error.message).not.toContain('sk-never-shown');
  });

  it('refuses a line that is not NAME=value naming its number, never its content', async () => {
    const path = secretsFile('bad.env', 'GOOD=1\nthis is sk-secret-looking text\n', 0o600);
    const error = await refusal(readSecretsFile(path, false));
    expect(error.code).toBe('secrets_file_invalid');
    expect(error.message).toContain('line 2');
    expect(error.message).not.toContain('sk-secret');
  });

  it('refuses a named file that does not exist, and reads an absent default file as empty', async () => {
    expect((await refusal(readSecretsFile(join(dir, 'missing.env'), true))).code).toBe('secrets_file_missing');
    const absent = await readSecretsFile(join(dir, 'missing.env'), false);
    expect(absent.present).toBe(false);
    expect(absent.values.size).toBe(0);
  });
});
