/**
 * README's way to have `actorkit` on PATH from a clone: `npm install -g .` (here into a temporary
 * prefix, so the machine's global folder is untouched). The installed command answers, and an
 * actor it renders outside the clone is self-contained: it carries this checkout packed as
 * `vendor/actorkit-<version>.tgz` and depends on nothing outside its folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder('actorkit-global-install-');
const VERSION = (JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

beforeAll(() => ensureBuilt());
afterAll(() => folder.cleanup());

describe('npm install -g . from a clone', () => {
  it('puts a working actorkit on PATH, and `actorkit new` from it renders a self-contained actor', () => {
    const prefix = join(folder.dir, 'prefix');
    const env = {
      ...process.env,
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
    execFileSync('npm', ['install', '-g', '.', '--prefix', prefix], { cwd: REPOSITORY_ROOT, env, stdio: 'pipe' });
    const bin = join(prefix, 'bin');
    const path = `${bin}:${process.env.PATH}`;
    expect(realpathSync(join(bin, 'actorkit'))).toBe(join(realpathSync(REPOSITORY_ROOT), 'dist', 'cli', 'main.js'));
    expect(execFileSync('actorkit', ['--version'], { env: { ...env, PATH: path }, encoding: 'utf8' }).trim()).toBe(
      VERSION,
    );

    const output = execFileSync('actorkit', ['new', 'demo', '--defaults'], {
      cwd: folder.dir,
      env: { ...env, PATH: path },
      encoding: 'utf8',
      stdio: 'pipe',
    });
    expect(output).toContain('3. npm run validate');
    const actor = join(folder.dir, 'demo');
    const manifest = JSON.parse(readFileSync(join(actor, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies.actorkit).toBe(`file:vendor/actorkit-${VERSION}.tgz`);
    expect(existsSync(join(actor, 'vendor', `actorkit-${VERSION}.tgz`))).toBe(true);
    const listed = execFileSync('tar', ['-tzf', join(actor, 'vendor', `actorkit-${VERSION}.tgz`)], {
      encoding: 'utf8',
    }).split('\n');
    expect(listed).toEqual(
      expect.arrayContaining([
        'package/dist/cli/main.js',
        'package/dist/src/index.js',
        'package/templates/actor/template.yml',
        'package/Dockerfile.template',
      ]),
    );
  }, 120_000);
});
