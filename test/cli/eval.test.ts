// `actorkit eval` with the built binary on a freshly rendered actor: the offline model, a mock
// OpenAI-compatible model (the actor's, and the judge's) over real HTTP, bad case files, --url
// against the actor served by its own entry, and --url against the edge of `actorkit platform`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completion, fakeOpenAIForThisFile } from '../agent/fake-openai-server.js';
import { eventually, renderBuildableActor, startPlatform, type PlatformProcess } from '../platform/platform-actors.js';
import { ensureBuilt, REPOSITORY_ROOT } from '../support/built-package.js';
import { ACTORKIT_BINARY, renderActor } from './support/rendered-actor.js';
import { temporaryFolder } from './support/template-repo.js';

const scratch = mkdtempSync(join(REPOSITORY_ROOT, 'node_modules', '.cache', 'actorkit-eval-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const model = await fakeOpenAIForThisFile();
let actor: string;

beforeAll(() => {
  ensureBuilt();
  actor = renderActor(scratch, 'shopbot');
}, 180_000);

/** Runs the built `actorkit eval` in a child process (asynchronously: the mock model answers from this one). */
function actorkitEval(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [ACTORKIT_BINARY, 'eval', ...args], {
    cwd: actor,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const modelEnv = () => ({ LLM_BASE_URL: model.baseUrl, LLM_MODEL: 'fake-model-1', LLM_API_KEY: 'test-key' });

describe('actorkit eval', () => {
  it("passes the template's three cases with the offline model (exit 0), with a table, reports and a baseline", async () => {
    const run = await actorkitEval(['.', '--reporter', 'json,junit', '--update-baseline']);
    expect(run.stderr).toContain('3/3 pass');
    expect(run.stdout).toMatch(/PASS\s+looks-up-a-topic\s+1\/1/);
    expect(run.stdout).toContain('3/3 cases passed, score 100%');
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(join(actor, 'evals', 'baseline.json'), 'utf8'))).toEqual({
      'greets-with-the-setting': 1,
      'looks-up-a-topic': 1,
      'small-talk-calls-no-tool': 1,
    });
    expect(readFileSync(join(actor, 'evals', 'junit.xml'), 'utf8')).toContain('tests="3" failures="0" errors="0"');
    const results = JSON.parse(readFileSync(join(actor, 'evals', 'results.json'), 'utf8'));
    expect(results.cases[0]).toMatchObject({ status: 'pass', runs: 1, passRate: 1 });
    expect(results.cases[0].inputTokens).toBeGreaterThan(0);
  }, 60_000);

  it('exits 1 naming the case and what differed when the model calls the tool with other arguments', async () => {
    model.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [{ id: 'c1', name: 'shopbot_lookup', arguments: '{"topic":"tests"}' }] }),
      },
      { kind: 'json', body: completion('Here is what I know about tests.') },
    );
    const run = await actorkitEval(
      ['.', '--filter', 'looks-up', '--price-input', '2', '--price-output', '8'],
      modelEnv(),
    );
    expect(run.stdout).toMatch(/FAIL\s+looks-up-a-topic\s+0\/1 \(baseline 100%\) regressed/);
    expect(run.stdout).toContain(
      'shopbot_lookup was called with {"topic":"tests"}, expected arguments matching {"topic":"testing"}',
    );
    expect(run.stdout).toMatch(/\$0\.\d{4}/);
    expect(run.stderr).toContain('fell below its baseline');
    expect(run.code).toBe(1);

    // Within --tolerance of the baseline, the same failure does not fail the eval.
    model.reply(
      {
        kind: 'json',
        body: completion(null, { toolCalls: [{ id: 'c2', name: 'shopbot_lookup', arguments: '{"topic":"tests"}' }] }),
      },
      { kind: 'json', body: completion('Here is what I know about tests.') },
    );
    const tolerated = await actorkitEval(['.', '--filter', 'looks-up', '--tolerance', '1'], modelEnv());
    expect(tolerated.stdout).toMatch(/FAIL\s+looks-up-a-topic\s+0\/1 \(baseline 100%\)\s/);
    expect(tolerated.code).toBe(0);
  }, 60_000);

  it('exits 1 naming the case when a tool edit makes its call fail, with the offline model', async () => {
    const tools = join(actor, 'src', 'shopbot', 'tools.ts');
    const original = readFileSync(tools, 'utf8');
    try {
      writeFileSync(tools, original.replace('v.maxLength(200)', 'v.maxLength(3)'));
      const run = await actorkitEval(['.']);
      expect(run.stdout).toMatch(/FAIL\s+looks-up-a-topic\s+0\/1 \(baseline 100%\) regressed/);
      expect(run.stdout).toContain('shopbot_lookup was called but failed:');
      expect(run.code).toBe(1);
    } finally {
      writeFileSync(tools, original);
    }
  }, 60_000);

  it('grades a rubric with the judge (EVAL_JUDGE_*) over HTTP, and fails the case the judge fails', async () => {
    writeFileSync(
      join(actor, 'evals', 'judged.yaml'),
      'turns: [hello]\nexpect:\n  reply:\n    rubric: The reply greets the user back.\n',
    );
    try {
      const judgeEnv = { EVAL_JUDGE_BASE_URL: model.baseUrl, EVAL_JUDGE_MODEL: 'judge-model' };
      model.reply({ kind: 'json', body: completion('{"pass": true, "reason": "it greets"}') });
      const passed = await actorkitEval(['.', '--filter', 'judged'], judgeEnv);
      expect(passed.stdout).toMatch(/PASS\s+judged/);
      expect(passed.code).toBe(0);
      const asked = model.requests.at(-1);
      expect(asked?.body.model).toBe('judge-model');
      expect(JSON.stringify(asked?.body.messages)).toContain('The reply greets the user back.');

      model.reply({ kind: 'json', body: completion('{"pass": false, "reason": "it does not greet"}') });
      const failed = await actorkitEval(['.', '--filter', 'judged'], judgeEnv);
      expect(failed.stdout).toContain('the judge failed the rubric: it does not greet');
      expect(failed.code).toBe(1);

      model.reply({ kind: 'json', status: 503, body: { error: { message: 'overloaded' } } });
      const judgeDown = await actorkitEval(['.', '--filter', 'judged'], judgeEnv);
      expect(judgeDown.stdout).toMatch(/ERROR\s+judged/);
      expect(judgeDown.code).toBe(2);
    } finally {
      rmSync(join(actor, 'evals', 'judged.yaml'));
    }
  }, 60_000);

  it('marks the cases error, not fail, when the model is down (exit 2)', async () => {
    const run = await actorkitEval(['.', '--filter', 'looks-up'], {
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_MODEL: 'gone',
      LLM_API_KEY: 'k',
      LLM_MAX_RETRIES: '0',
    });
    expect(run.stdout).toMatch(/ERROR\s+looks-up-a-topic/);
    expect(run.stdout).not.toContain('FAIL');
    expect(run.code).toBe(2);
  }, 60_000);

  it('refuses a malformed case naming the file, the line and the field, and a tool the actor lacks', async () => {
    const bad = join(actor, 'evals', 'zz-bad.yaml');
    try {
      writeFileSync(bad, 'turns:\n  - hello\nexpect:\n  tools:\n    called:\n      - nme: shopbot_lookup\n');
      const malformed = await actorkitEval(['.']);
      expect(malformed.stderr).toBe(`error: evals/zz-bad.yaml:6: expect.tools.called.0.name is required\n`);
      expect(malformed.code).toBe(2);

      writeFileSync(bad, 'turns: [hello]\nbudget:\n  tokens: 10\n');
      expect((await actorkitEval(['.'])).stderr).toBe(
        'error: evals/zz-bad.yaml:2: budget is not a field of an eval case here\n',
      );

      writeFileSync(bad, 'turns: [hello]\nweight: heavy\n');
      expect((await actorkitEval(['.'])).stderr).toContain('evals/zz-bad.yaml:2: weight Invalid type');

      writeFileSync(bad, 'turns: [hello\n');
      expect((await actorkitEval(['.'])).stderr).toMatch(/^error: evals\/zz-bad\.yaml:\d+: /);

      writeFileSync(bad, 'turns: [hello]\nexpect:\n  tools:\n    not_called: [shopbot_delete]\n');
      const unknown = await actorkitEval(['.']);
      expect(unknown.stderr).toBe(
        "error: evals/zz-bad.yaml: the case 'zz-bad' names the tool 'shopbot_delete', which the actor does not have (its tools: shopbot_lookup)\n",
      );
      expect(unknown.code).toBe(2);
    } finally {
      rmSync(bad, { force: true });
    }
  }, 60_000);

  describe('--url against the actor served by its own entry', () => {
    let served: ChildProcess;
    let url: string;
    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      served = spawn(process.execPath, ['--import', import.meta.resolve('tsx/esm'), 'src/main.node.ts'], {
        cwd: actor,
        env: {
          PATH: process.env.PATH,
          PORT: String(port),
          DATABASE_URL: 'memory://',
          API_KEY_ENABLED: 'true',
          API_KEY: 'right-key',
        },
        stdio: 'ignore',
      });
      for (let attempt = 0; attempt < 200; attempt++) {
        if (
          await fetch(`${url}/ready`).then(
            (response) => response.ok,
            () => false,
          )
        )
          return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the actor did not start');
    }, 60_000);
    afterAll(() => {
      served?.kill();
    });

    it('runs the cases over HTTP with the key, skipping those that override settings', async () => {
      const run = await actorkitEval(['.', '--url', url, '--key', 'right-key']);
      expect(run.stderr).toContain('skipped greets-with-the-setting');
      expect(run.stdout).toContain(`eval of ${url}/agent/invoke`);
      expect(run.stdout).toContain('2/2 cases passed');
      expect(run.code).toBe(0);
    }, 60_000);

    it('refuses a wrong key with one error, not one per case (exit 2)', async () => {
      const run = await actorkitEval(['.', '--url', url], { ACTORKIT_EVAL_KEY: 'wrong-key' });
      expect(run.stderr.match(/error:/g)).toHaveLength(1);
      expect(run.stderr).toContain(
        `error: ${url}/agent/invoke refused the key (401): pass the key it accepts with --key or ACTORKIT_EVAL_KEY`,
      );
      expect(run.code).toBe(2);
    }, 60_000);
  });

  describe('--url against the edge of `actorkit platform`', () => {
    // Outside node_modules: tsc emits nothing of a project below it, and the platform builds the actor.
    const hostFolder = temporaryFolder('actorkit-eval-edge-');
    let hostedActor: string;
    let platform: PlatformProcess;
    beforeAll(async () => {
      hostedActor = renderBuildableActor(hostFolder.dir, 'shopbot');
      platform = await startPlatform([hostedActor, '--state-dir', join(hostFolder.dir, 'state')], {
        cwd: hostFolder.dir,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      });
      // The gateway admits chats once its own probe saw a replica ready.
      const { edgeUrl, edgeKey } = hosted();
      await eventually('the edge to reach a ready replica', async () => {
        const health = await fetch(`${edgeUrl}health`, { headers: { 'X-API-Key': edgeKey } });
        return health.ok;
      });
    }, 180_000);
    afterAll(async () => {
      platform?.child.kill('SIGTERM');
      await platform?.exited;
      hostFolder.cleanup();
    });
    /** The edge URL and key `actorkit platform` printed for the hosted actor. */
    const hosted = () => {
      const { edgeUrl, edgeKey } = platform.ready.actors[0] ?? {};
      if (edgeUrl === undefined || edgeKey === undefined) throw new Error('the platform printed no edge for the actor');
      return { edgeUrl, edgeKey };
    };

    it('runs the cases through the edge URL the platform prints, with the instance key', async () => {
      const { edgeUrl, edgeKey } = hosted();
      // The command docs/evals.md shows, with this platform's address, actor and key.
      const documented = /^actorkit eval \. --url (\S+) --key /m.exec(
        readFileSync(join(REPOSITORY_ROOT, 'docs', 'evals.md'), 'utf8'),
      )?.[1];
      expect(documented).toBe(`http://127.0.0.1:8790${new URL(edgeUrl).pathname.replace('shopbot', 'shop')}`);
      const run = await actorkitEval([hostedActor, '--url', edgeUrl, '--key', edgeKey]);
      expect(run.stdout).toContain(`eval of ${edgeUrl}chat`);
      expect(run.stdout).toMatch(/PASS\s+looks-up-a-topic\s+1\/1/);
      expect(run.stdout).toMatch(/PASS\s+small-talk-calls-no-tool\s+1\/1/);
      expect(run.stdout).toContain('2/2 cases passed, score 100%');
      expect(run.stderr).toContain('skipped greets-with-the-setting');
      expect(run.code).toBe(0);
    }, 60_000);

    it('refuses a wrong key with one error, not one per case (exit 2)', async () => {
      const { edgeUrl } = hosted();
      const run = await actorkitEval([hostedActor, '--url', edgeUrl, '--key', 'akedge_not-this-instance']);
      expect(run.stderr.match(/error:/g)).toHaveLength(1);
      expect(run.stderr).toContain(`error: ${edgeUrl}chat refused the key (401)`);
      expect(run.code).toBe(2);
    }, 60_000);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
