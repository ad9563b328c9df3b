import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from '../../cli/commands/index.js';
import type { VerbMeta } from '../../cli/commands/_shared.js';
import { runCli } from '../../cli/run-cli.js';
import { memoryIo } from './support/memory-io.js';
import { temporaryFolder } from './support/template-repo.js';

const folder = temporaryFolder();
afterAll(() => folder.cleanup());

async function actorkit(args: string[]) {
  const io = memoryIo({ cwd: folder.dir });
  const code = await runCli(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** Splits a one-line shell command into words: double quotes group, nothing else is special. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? (match[2] as string));
}

describe('actorkit help', () => {
  it('prints the same as --help, for the CLI and for each verb (exit 0)', async () => {
    const main = await actorkit(['help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toBe((await actorkit(['--help'])).stdout);
    expect(main.stdout).toMatch(/help\s+Show the help of the CLI or of one verb/);
    for (const verb of Object.keys(commands)) {
      const help = await actorkit(['help', verb]);
      expect(help.code, verb).toBe(0);
      expect(help.stdout, verb).toBe((await actorkit([verb, '--help'])).stdout);
      expect(help.stdout, verb).toContain(`USAGE actorkit ${verb}`);
    }
  });

  it('refuses an unknown verb (exit 2), naming the verbs', async () => {
    const result = await actorkit(['help', 'deploy']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: unknown command 'deploy' (the verbs are new, validate, publish, update, dev, eval, platform, help; see `actorkit --help`)\n",
    );
    expect((await actorkit(['help', 'new', 'extra'])).code).toBe(2);
  });

  it('ends the help of a verb with its meta.example under Example:', async () => {
    for (const verb of ['new', 'validate', 'publish', 'update', 'dev', 'eval', 'platform', 'help'] as const) {
      const meta = (await commands[verb]()).meta as VerbMeta;
      const help = await actorkit([verb, '--help']);
      expect(help.stdout, verb).toMatch(
        new RegExp(`\\nExample:\\n\\n  \\$ ${meta.example.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n\\n$`),
      );
    }
  });

  it("lists the bundled template's questions with their types and defaults under new --help", async () => {
    const help = (await actorkit(['new', '--help'])).stdout;
    expect(help).toContain('Questions of the bundled template (answer with --data KEY=VALUE');
    expect(help).toMatch(/ {2}integration_type +none\|n8n +default: "none"\n {6}Workflow-automation integration/);
    expect(help).toMatch(/ {2}llm_base_url +str +default: ""/);
    expect(help).toMatch(/ {2}domain_module +str +default: "\{\{ actor_slug \| replace\('-', ''\) \}\}"/);
    expect(help).not.toMatch(/^ {2}actor_name /m);
    expect(help.indexOf('Questions of the bundled template')).toBeLessThan(help.indexOf('Example:'));
  });

  it("new's example works as written", async () => {
    const meta = (await commands.new()).meta as VerbMeta;
    const [program, ...args] = shellWords(meta.example);
    expect(program).toBe('actorkit');
    const result = await actorkit(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(existsSync(join(folder.dir, 'weather-bot', 'src', 'weather', 'client.ts'))).toBe(true);
    expect(result.stdout).toContain('GET  /panel/stats');
  });
});
