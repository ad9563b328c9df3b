// `actorkit platform <dir...> --manifests <out>` with the built CLI: writes the Kubernetes
// manifests instead of hosting, prints validate's bullets for an actor that does not validate,
// and refuses options that only concern hosting.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../cli/support/template-repo.js';
import { ACTORKIT_BINARY } from '../cli/support/rendered-actor.js';
import { ensureBuilt } from '../support/built-package.js';

const folder = temporaryFolder('actorkit-platform-manifests-');

function actorkit(args: readonly string[]) {
  const run = spawnSync(process.execPath, [ACTORKIT_BINARY, ...args], {
    cwd: folder.dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function render(name: string, data: readonly string[] = []): void {
  const created = actorkit(['new', name, '--defaults', ...data.flatMap((pair) => ['--data', pair])]);
  if (created.status !== 0) throw new Error(`actorkit new ${name} failed:\n${created.stderr}`);
}

beforeAll(() => {
  ensureBuilt();
  render('weather', ['fleet_mesh=true']);
  render('news', ['fleet_mesh=true', 'include_panel=true']);
}, 60_000);
afterAll(() => folder.cleanup());

describe('actorkit platform --manifests', () => {
  it('says so in --help', () => {
    const help = actorkit(['platform', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--manifests=<out>');
    expect(help.stdout).toContain('actorkit platform ./weather ./news --manifests k8s --namespace actors');
  });

  it('writes the manifests of every actor instead of hosting, and exits 0', () => {
    const run = actorkit([
      'platform',
      'weather',
      'news',
      '--manifests',
      'k8s',
      '--namespace',
      'actors',
      '--mesh-group',
      'weather=forecast',
      '--mesh-group',
      'news=forecast',
    ]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(`Wrote the Kubernetes manifests of 2 actors to ${join(folder.dir, 'k8s')}:`);
    expect(run.stdout).toContain('Deployment/weather, Service/weather');
    expect(run.stdout).toContain('then: kubectl apply -f k8s');
    const weather = readFileSync(join(folder.dir, 'k8s', 'weather.yaml'), 'utf8');
    expect(weather).toContain('namespace: actors');
    expect(weather).toContain('name: actorkit-mesh-forecast');
    expect(existsSync(join(folder.dir, 'k8s', 'news.yaml'))).toBe(true);
    expect(existsSync(join(folder.dir, '.actorkit'))).toBe(false);
  });

  it('prints one JSON object with --json', () => {
    const run = actorkit(['platform', 'weather', '--manifests', 'k8s-json', '--json']);
    expect(run.status).toBe(0);
    const printed = JSON.parse(run.stdout) as {
      status: string;
      files: string[];
      applyCommand: string;
      objects?: unknown;
    };
    expect(printed).toMatchObject({ status: 'ok', applyCommand: 'kubectl apply -f k8s-json' });
    expect(printed.files).toEqual([
      join(folder.dir, 'k8s-json', 'weather.yaml'),
      join(folder.dir, 'k8s-json', 'README.md'),
    ]);
  });

  it("refuses an actor that does not validate with validate's bullets, writing nothing", () => {
    render('broken');
    const configPath = join(folder.dir, 'broken', 'src', 'platform', 'config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    config.deployment.replicas = { min: 3, max: 1 };
    writeFileSync(configPath, JSON.stringify(config, null, 2));
    const run = actorkit(['platform', 'weather', 'broken', '--manifests', 'k8s-broken']);
    expect(run.status).toBe(1);
    const [first, ...bullets] = run.stderr.trim().split('\n');
    expect(first).toMatch(/^error: .*broken/);
    expect(bullets.length).toBeGreaterThan(0);
    for (const bullet of bullets) expect(bullet).toMatch(/^- \[/);
    expect(run.stderr).toContain('/deployment/replicas/min');
    expect(existsSync(join(folder.dir, 'k8s-broken'))).toBe(false);
  });

  it('refuses options that only concern hosting, and a second mesh group', () => {
    const hosting = actorkit(['platform', 'weather', '--manifests', 'k8s-x', '--replicas', '2']);
    expect(hosting.status).toBe(2);
    expect(hosting.stderr.trim()).toBe(
      'error: --manifests writes files and hosts nothing, so --replicas does not apply',
    );
    const groups = actorkit([
      'platform',
      'weather',
      'news',
      '--manifests',
      'k8s-x',
      '--mesh-group',
      'weather=a',
      '--mesh-group',
      'news=b',
    ]);
    expect(groups.status).toBe(2);
    expect(groups.stderr.trim()).toBe(
      'error: --manifests puts every fleet_mesh actor in one mesh group (one Secret), but --mesh-group names a and b',
    );
    const stray = actorkit(['platform', 'weather', '--namespace', 'actors']);
    expect(stray.status).toBe(2);
    expect(stray.stderr.trim()).toBe('error: --namespace applies only with --manifests <out>');
    expect(existsSync(join(folder.dir, 'k8s-x'))).toBe(false);
  });
});
