import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderActor } from '../../cli/render/render-actor.js';

const ROOT = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'actorkit-hostile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Quotes of every kind, a template literal, a comment end, a backslash and a line separator. */
const HOSTILE_DESCRIPTION = 'Tom\'s "weather" `helper` ${(globalThis as any).pwned = 1} */ /* \\ </script> \u2028 done';

/** Links what `npm install` would bring: the template's dependencies from this checkout, and this checkout as actorkit (its build). */
function linkDependencies(actorDir: string): void {
  const modules = join(actorDir, 'node_modules');
  mkdirSync(join(modules, '@types'), { recursive: true });
  for (const name of ['valibot', 'vitest', 'typescript'])
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(modules, '@types', 'node'));
  symlinkSync(ROOT, join(modules, 'actorkit'));
}

describe('answers that land in code are JSON/TS-safe', () => {
  it('renders a hostile description into code that type-checks and keeps the text exactly', async () => {
    const actorDir = join(scratch, 'hostile');
    const result = await renderActor({
      actorName: 'Hostile Bot',
      targetDir: actorDir,
      defaults: true,
      data: [`description=${HOSTILE_DESCRIPTION}`, 'include_panel=true', 'fleet_mesh=true', 'integration_type=n8n'],
      io: { interactive: false, cwd: scratch },
    });
    expect(result.status, JSON.stringify(result)).toBe('ok');
    linkDependencies(actorDir);
    const checked = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', actorDir],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(`${checked.stdout}${checked.stderr}`).toBe('');
    expect(checked.status).toBe(0);
    const prompt = (await import(join(actorDir, 'src', 'prompts', 'system-prompt.ts'))) as { SYSTEM_PROMPT: string };
    expect(prompt.SYSTEM_PROMPT.split('\n')[0]).toBe(`You are Hostile Bot. ${HOSTILE_DESCRIPTION}`);
    expect((globalThis as { pwned?: number }).pwned).toBeUndefined();
    expect(JSON.parse(readFileSync(join(actorDir, 'package.json'), 'utf8')).description).toBe(HOSTILE_DESCRIPTION);
  }, 150_000);

  it.each([
    ['actor_name', ['new', "Tom's bot"]],
    ['description with a line break', ['new', 'bot', '--data', 'description=one\n}); process.exit(1); //']],
    ['llm_model with a quote', ['new', 'bot', '--data', "llm_model=x'+process.exit(1)+'"]],
  ])('refuses %s that no actor setting or platform field could hold', async (_what, args) => {
    const [, actorName, ...rest] = args as [string, string, ...string[]];
    const data = rest.filter((_, index) => index % 2 === 1);
    const result = await renderActor({
      actorName,
      targetDir: join(scratch, 'refused'),
      defaults: true,
      data,
      io: { interactive: false, cwd: scratch },
    });
    expect(result.status).toBe('refused');
  });
});
