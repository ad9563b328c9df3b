import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { git } from './git.js';

const folder = mkdtempSync(join(tmpdir(), 'actorkit-git-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('git', () => {
  it('stops a git that does not answer within the timeout and says so', async () => {
    writeFileSync(join(folder, 'git'), '#!/bin/sh\nexec /bin/sleep 10\n');
    chmodSync(join(folder, 'git'), 0o755);
    const started = Date.now();
    const run = git(['clone', '--', 'https://example.invalid/x.git', 'x'], { PATH: folder }, 300);
    await expect(run).rejects.toMatchObject({
      code: 'git_failed',
      message: 'git clone failed: no answer within 0.3 s',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
