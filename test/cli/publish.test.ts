import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseContainerCli } from '../../cli/publish/container-commands.js';
import { runCli } from '../../cli/run-cli.js';
import { writeActorFixture } from './support/actor-fixture.js';
import { memoryIo } from './support/memory-io.js';
import { runInTerminal } from './support/pseudo-terminal.js';
import { runInFreshFolder } from './support/run-in-fresh-folder.js';
import { createStandInContainerCli, type StandInContainerCli } from './support/stand-in-container-cli.js';
import { temporaryFolder } from './support/template-repo.js';

const ROOT = resolve(import.meta.dirname, '../..');
const folder = temporaryFolder();
const everyCall: string[][] = [];
let counter = 0;

/** An actor (config.json emitted; valid unless `options` break it) with its own stand-in container CLI. */
async function setup(options: Parameters<typeof writeActorFixture>[1] = {}) {
  const root = join(folder.dir, `case-${++counter}`);
  const actor = writeActorFixture(join(root, 'actor'), options);
  const cli = createStandInContainerCli(root, ['docker', 'podman-standin']);
  const emitted = memoryIo({ cwd: root });
  const valid = (await runCli(['validate', '--write', actor], emitted)) === 0;
  if (options.packageJson === undefined) expect(valid).toBe(true);
  return { root, actor, cli };
}

async function publish(
  context: { root: string; cli: StandInContainerCli },
  args: string[],
  env: Record<string, string> = {},
) {
  const run = memoryIo({ cwd: context.root, env: context.cli.env(env) });
  const code = await runCli(['publish', ...args], run);
  everyCall.push(...context.cli.calls());
  return { code, stdout: run.stdout(), stderr: run.stderr(), calls: context.cli.calls() };
}

afterAll(() => {
  // publish never deletes anything: no call in any test removed or pruned an image or tag
  const deleting = everyCall.filter((argv) => argv.some((arg) => /^(rm|rmi|prune|untag|delete|remove)$/.test(arg)));
  expect(everyCall.length).toBeGreaterThan(0);
  expect(deleting).toEqual([]);
  folder.cleanup();
});

describe('actorkit publish', () => {
  it('with --yes builds and pushes <image_repo>:v<version> with exactly these calls, streaming their output', async () => {
    const context = await setup();
    const result = await publish(context, [context.actor, '--yes']);
    expect(result.code).toBe(0);
    const image = 'registry.example.com/acme/weather:v1.2.0';
    expect(result.calls).toEqual([
      ['manifest', 'inspect', image],
      ['build', '-f', join(context.actor, 'Dockerfile'), '-t', image, context.actor],
      ['push', image],
    ]);
    expect(result.stderr).not.toContain('warning');
    expect(result.stdout).toContain('stand-in docker build output\n');
    expect(result.stderr).toContain('stand-in docker push progress\n');
    expect(result.stderr).toContain(
      `$ docker build -f ${join(context.actor, 'Dockerfile')} -t ${image} ${context.actor}\n`,
    );
    expect(result.stdout).toContain(
      `Pushed ${image}\n\nRegister the actor in the creator hub:\n  1. Open http://localhost:3000/home/creator/register-actor\n  2. Enter the image ${image}\n`,
    );
  });

  it('takes --repo, --tag, ACTORKIT_CONTAINER_CLI and PLATFORM_URL', async () => {
    const context = await setup();
    const result = await publish(
      context,
      [context.actor, '--yes', '--repo', 'ghcr.io/team/forecast', '--tag=2024.06-rc1', '--json'],
      {
        ACTORKIT_CONTAINER_CLI: 'podman-standin',
        PLATFORM_URL: 'https://hub.example.org/',
      },
    );
    expect(result.code).toBe(0);
    const image = 'ghcr.io/team/forecast:2024.06-rc1';
    expect(result.calls).toEqual([
      ['manifest', 'inspect', image],
      ['build', '-f', join(context.actor, 'Dockerfile'), '-t', image, context.actor],
      ['push', image],
    ]);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({
      status: 'ok',
      image,
      commands: result.calls.map((argv) => ['podman-standin', ...argv]),
      registrationUrl: 'https://hub.example.org/home/creator/register-actor',
    });
    expect(json.steps[0]).toBe('Open https://hub.example.org/home/creator/register-actor');
    expect(result.stderr).toContain('stand-in podman-standin build output');
  });

  it('with podman (or buildah) builds and pushes with the same calls and asks skopeo whether the tag exists', async () => {
    for (const engine of ['podman', 'buildah']) {
      const context = await setup();
      const cli = createStandInContainerCli(context.root, [engine, 'skopeo']);
      const image = 'registry.example.com/acme/weather:v1.2.0';
      const result = await publish({ root: context.root, cli }, [context.actor, '--yes'], {
        ACTORKIT_CONTAINER_CLI: join(cli.binDir, engine),
        STAND_IN_EXISTING: image,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.calls).toEqual([
        ['inspect', '--raw', `docker://${image}`],
        ['build', '-f', join(context.actor, 'Dockerfile'), '-t', image, context.actor],
        ['push', image],
      ]);
      expect(result.stderr).toContain(`warning: ${image} already exists in the registry; pushing replaces it\n`);
      expect(result.stdout).toContain(`stand-in ${engine} build output`);
    }
  });

  it('without ACTORKIT_CONTAINER_CLI takes the first of docker, podman and buildah on PATH, and refuses (exit 2) when there is none', async () => {
    const context = await setup();
    const only = (names: string[]) => {
      const dir = join(context.root, names.join('-'));
      createStandInContainerCli(dir, names);
      return join(dir, 'bin');
    };
    expect(chooseContainerCli({ PATH: `${only(['buildah'])}:${only(['podman'])}` })).toBe('podman');
    expect(chooseContainerCli({ PATH: only(['buildah', 'podman', 'docker']) })).toBe('docker');
    expect(chooseContainerCli({ PATH: only(['buildah']), ACTORKIT_CONTAINER_CLI: 'nerdctl' })).toBe('nerdctl');
    const run = memoryIo({ cwd: context.root, env: { PATH: only(['skopeo']), HOME: process.env.HOME } });
    expect(await runCli(['publish', context.actor, '--yes'], run)).toBe(2);
    expect(run.stderr()).toBe(
      'error: publish builds with a container CLI and found none of docker, podman, buildah on PATH: install one, or name it in ACTORKIT_CONTAINER_CLI; nothing was built or pushed\n',
    );
  });

  it('refuses (exit 2) without a terminal and without --yes, before running anything', async () => {
    const context = await setup();
    const result = await publish(context, [context.actor]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: publish builds and pushes registry.example.com/acme/weather:v1.2.0; confirm in a terminal, or pass --yes\n',
    );
    expect(result.calls).toEqual([]);
  });

  it('stops (exit 1) on validation problems, printing them, and runs nothing', async () => {
    const context = await setup();
    writeFileSync(join(context.actor, 'src', 'platform', 'config.json'), '{}\n');
    const result = await publish(context, [context.actor, '--yes']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('does not validate; nothing was built or pushed\n');
    expect(result.stderr).toMatch(/^- \[emitter\] \/: src\/platform\/config.json is stale/m);
    expect(result.calls).toEqual([]);
  });

  it('fails (exit 1) when the build fails, and does not push', async () => {
    const context = await setup();
    const result = await publish(context, [context.actor, '--yes'], { STAND_IN_FAIL: 'build' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('exited with 3');
    expect(result.calls.map((argv) => argv[0])).toEqual(['manifest', 'build']);
  });

  it.each([
    [
      'no image repository anywhere',
      { packageJson: { actorkit: {} } },
      [],
      'no --repo given and package.json has no actorkit.deployment.image_repo',
    ],
    [
      'no version for the default tag',
      { packageJson: { version: '' } },
      [],
      'no --tag given and package.json has no version',
    ],
    [
      'a repository with a tag in it',
      {},
      ['--repo', 'acme/weather:latest'],
      "'acme/weather:latest' is not a valid image repository (give the repository without a tag or digest; use --tag)",
    ],
    ['an invalid tag', {}, ['--tag', '-rm'], "'-rm' is not a valid image tag"],
    ['the tag latest', {}, ['--tag', 'latest'], "publish does not push 'latest': it moves with every push"],
    ['the tag LATEST', {}, ['--tag=LATEST'], "publish does not push 'latest'"],
    ['an unknown --bump level', {}, ['--bump', 'huge'], "--bump must be one of patch, minor, major, not 'huge'"],
    [
      '--bump of a version semver cannot raise',
      { packageJson: { version: 'one' } },
      ['--bump', 'patch'],
      "cannot bump the version 'one' of package.json",
    ],
  ])('refuses (exit 2) %s', async (_what, fixture, extra, message) => {
    const context = await setup(fixture);
    const result = await publish(context, [context.actor, '--yes', ...extra]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.calls).toEqual([]);
  });

  it.each([
    ['actorkit', 'dependencies', 'file:/opt/src/actorkit'],
    ['actorkit', 'dependencies', 'link:../../actorkit'],
    ['helper', 'devDependencies', 'file:..'],
  ])('refuses (exit 2) %s in %s as %s, before validating or building, saying why', async (name, field, spec) => {
    const context = await setup({ packageJson: { [field]: { [name]: spec } } });
    writeFileSync(join(context.actor, 'src', 'platform', 'config.json'), '{}\n');
    const result = await publish(context, [context.actor, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: ${field}.${name} is '${spec}', outside ${context.actor}: the image is built with the actor folder as its build context`,
    );
    expect(result.stderr).toContain('Depend on');
    expect(result.stderr).toContain('or vendor its tarball inside the actor folder');
    expect(result.stderr).not.toContain('does not validate');
    expect(result.calls).toEqual([]);
  });

  it('takes a file: dependency inside the actor folder (a vendored tarball)', async () => {
    const context = await setup({ packageJson: { dependencies: { actorkit: 'file:vendor/actorkit-0.1.0.tgz' } } });
    const result = await publish(context, [context.actor, '--yes']);
    expect(result.stderr).not.toContain('outside');
    expect(result.code).toBe(0);
  });

  it('warns on stderr and goes on with --yes when the tag already exists in the registry', async () => {
    const context = await setup();
    const image = 'registry.example.com/acme/weather:v1.2.0';
    const result = await publish(context, [context.actor, '--yes', '--json'], { STAND_IN_EXISTING: image });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`warning: ${image} already exists in the registry; pushing replaces it\n`);
    expect(JSON.parse(result.stdout).warnings).toEqual([
      `${image} already exists in the registry; pushing replaces it`,
    ]);
    expect(result.calls.map((argv) => argv[0])).toEqual(['manifest', 'build', 'push']);
  });

  it('--bump patch raises the version in package.json and src/actor.ts, emits config.json again, and tags the new version', async () => {
    const context = await setup();
    const result = await publish(context, [context.actor, '--yes', '--bump', 'patch']);
    expect(result.code, result.stderr).toBe(0);
    const image = 'registry.example.com/acme/weather:v1.2.1';
    expect(result.calls).toEqual([
      ['manifest', 'inspect', image],
      ['build', '-f', join(context.actor, 'Dockerfile'), '-t', image, context.actor],
      ['push', image],
    ]);
    expect(result.stdout).toContain('Version 1.2.0 -> 1.2.1 (package.json, src/actor.ts, src/platform/config.json)\n');
    const packageJson = readFileSync(join(context.actor, 'package.json'), 'utf8');
    expect(JSON.parse(packageJson).version).toBe('1.2.1');
    expect(packageJson.split('\n')[2]).toBe('  "version": "1.2.1",');
    expect(readFileSync(join(context.actor, 'src', 'actor.ts'), 'utf8')).toContain("version: '1.2.1'");
    const config = JSON.parse(readFileSync(join(context.actor, 'src', 'platform', 'config.json'), 'utf8'));
    expect(config.actor.version).toBe('1.2.1');
    expect(await runCli(['validate', context.actor], memoryIo({ cwd: context.root }))).toBe(0);
  });

  it.each([
    ['minor', '1.3.0'],
    ['major', '2.0.0'],
  ])('--bump %s tags v%s', async (level, version) => {
    const context = await setup();
    const result = await publish(context, [context.actor, '--yes', `--bump=${level}`]);
    expect(result.code).toBe(0);
    expect(result.calls.at(-1)).toEqual(['push', `registry.example.com/acme/weather:v${version}`]);
  });

  it('--bump warns when src/actor.ts does not hold the version as a literal', async () => {
    const context = await setup();
    const source = readFileSync(join(context.actor, 'src', 'actor.ts'), 'utf8').replace(
      "version: '1.2.0'",
      'version: VERSION',
    );
    writeFileSync(join(context.actor, 'src', 'actor.ts'), `const VERSION = '1.2.0';\n${source}`);
    await runCli(['validate', '--write', context.actor], memoryIo({ cwd: context.root }));
    const result = await publish(context, [context.actor, '--yes', '--bump', 'patch']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "warning: src/actor.ts holds no literal version '1.2.0': set metadata.version to '1.2.1' yourself",
    );
    expect(JSON.parse(readFileSync(join(context.actor, 'package.json'), 'utf8')).version).toBe('1.2.1');
  });

  it('publishes the current folder when no actor_dir is given', async () => {
    const context = await setup();
    const run = memoryIo({ cwd: context.actor, env: context.cli.env() });
    expect(await runCli(['publish', '--yes'], run)).toBe(0);
    expect(context.cli.calls().at(-1)).toEqual(['push', 'registry.example.com/acme/weather:v1.2.0']);
    everyCall.push(...context.cli.calls());
  });

  it('--help shows an example that names the actor folder and --bump', async () => {
    const run = memoryIo({ cwd: folder.dir });
    expect(await runCli(['publish', '--help'], run)).toBe(0);
    expect(run.stdout()).toMatch(/\nExample:\n\n {2}\$ actorkit publish \. --bump patch\n\n$/);
    expect(run.stdout()).toContain('--bump=<patch|minor|major>');
  });

  it('refuses (exit 2) an actor without a Dockerfile', async () => {
    const context = await setup();
    rmSync(join(context.actor, 'Dockerfile'));
    const result = await publish(context, [context.actor, '--yes']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no Dockerfile to build');
    expect(result.calls).toEqual([]);
  });
});

/** Runs `actorkit publish` in a pseudo-terminal, typing `answer` at the confirmation. */
async function publishInTerminal(
  context: { root: string; actor: string; cli: StandInContainerCli },
  answer: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
) {
  const steps = [{ after: '[y/N]', keys: `${answer}\r` }];
  const result = await runInTerminal(['publish', context.actor, ...extraArgs], {
    cwd: context.root,
    env: context.cli.env(env),
    steps,
  });
  everyCall.push(...context.cli.calls());
  return result;
}

describe('actorkit publish at a terminal', () => {
  let context: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    context = await setup();
  });

  it('shows the exact calls, asks, and publishes on y', async () => {
    const result = await publishInTerminal(context, 'y');
    expect(result.output).toContain('publish will:');
    expect(result.output).toContain(`docker push registry.example.com/acme/weather:v1.2.0`);
    expect(result.output).toContain('Build and push registry.example.com/acme/weather:v1.2.0? [y/N]');
    expect(result.code).toBe(0);
    expect(context.cli.calls().map((argv) => argv[0])).toEqual(['manifest', 'build', 'push']);
  });

  it('refuses (exit 2) on any other answer, running nothing more', async () => {
    const before = context.cli.calls().length;
    const result = await publishInTerminal(context, 'n');
    expect(result.code).toBe(2);
    expect(result.output).toContain('publish cancelled; nothing was built or pushed');
    expect(
      context.cli
        .calls()
        .slice(before)
        .map((argv) => argv[0]),
    ).toEqual(['manifest']);
  });

  it('says the push replaces the tag the registry already has, and with --bump shows the version change; n changes nothing', async () => {
    const before = context.cli.calls().length;
    const packageJson = readFileSync(join(context.actor, 'package.json'), 'utf8');
    const image = 'registry.example.com/acme/weather:v1.2.1';
    const result = await publishInTerminal(context, 'n', ['--bump', 'patch'], { STAND_IN_EXISTING: image });
    expect(result.output).toContain(`warning: ${image} already exists in the registry; pushing replaces it`);
    expect(result.output).toContain(
      'set the version 1.2.0 -> 1.2.1 in package.json and src/actor.ts, then emit src/platform/config.json',
    );
    expect(result.output).toContain(
      `Build and push ${image}, replacing the image the registry has under that tag? [y/N]`,
    );
    expect(result.code).toBe(2);
    expect(readFileSync(join(context.actor, 'package.json'), 'utf8')).toBe(packageJson);
    expect(context.cli.calls().slice(before)).toEqual([['manifest', 'inspect', image]]);
  });
});

describe('a freshly rendered actor from this checkout: what its README says of publish is what publish does', () => {
  it('carries actorkit as vendor/actorkit-<version>.tgz, says so in its README, and publish builds and pushes it (exit 0)', async () => {
    const root = join(folder.dir, `fresh-${++counter}`);
    mkdirSync(root);
    const rendered = await runInFreshFolder(root, ['new', 'weather', '--defaults']);
    expect(rendered.code, rendered.stderr).toBe(0);
    const actor = join(rendered.cwd, 'weather');
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const dependency = (
      JSON.parse(readFileSync(join(actor, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
    ).dependencies.actorkit!;
    expect(dependency).toBe(`file:vendor/actorkit-${version}.tgz`);
    expect(statSync(join(actor, 'vendor', `actorkit-${version}.tgz`)).size).toBeGreaterThan(100_000);
    const readme = readFileSync(join(actor, 'README.md'), 'utf8');
    expect(readme).toContain(
      `\`package.json\` depends on \`vendor/actorkit-${version}.tgz\`. Keep that file committed`,
    );
    expect(readme).not.toContain('`publish` refuses it');
    const dockerfile = readFileSync(join(actor, 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^COPY vendor \.\/vendor$/gm)).toHaveLength(2);
    const cli = createStandInContainerCli(root, ['docker']);
    const result = await publish({ root, cli }, [actor, '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.calls.map((argv) => argv[0])).toEqual(['manifest', 'build', 'push']);
  });
});
