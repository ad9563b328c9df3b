import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const sinkModule = JSON.stringify(new URL('./json-lines-sink.ts', import.meta.url).pathname);

/**
 * Runs `script`, an ES module, in a plain Node process, the sink's module imported first as
 * `sink` (unless `before` runs first: then `sink` is imported after it); `pauseMs` holds the
 * process's standard output unread that long first.
 */
async function runScript(script: string, options: { pauseMs?: number; before?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const pauseMs = options.pauseMs ?? 0;
  const module = `${options.before ?? ''}\nconst sink = await import(${sinkModule});\n${script}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', module], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  if (pauseMs > 0) {
    child.stdout.pause();
    setTimeout(() => child.stdout.on('data', (chunk: string) => (stdout += chunk)).resume(), pauseMs);
  } else child.stdout.on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}

const records = [
  { time: 't', level: 'info', event: 'plain', n: 1 },
  { time: 't', level: 'info', event: 'wide', text: 'héllo ✓ 😀 \u2028 "quoted" \\ back' },
  { time: 't', level: 'warn', event: 'warned', tool_calls: ['a'] },
  { time: 't', level: 'info', event: 'after', list: [1, 'two', null] },
];

describe('the JSON lines on standard output of a Node process', () => {
  it('are the bytes JSON.stringify makes, one line each, warnings on standard error after the lines held before them', async () => {
    const { code, stdout, stderr } = await runScript(`for (const record of ${JSON.stringify(records)}) sink.jsonLinesSink(record);`);
    expect(code).toBe(0);
    expect(stdout).toBe(`${JSON.stringify(records[0])}\n${JSON.stringify(records[1])}\n${JSON.stringify(records[3])}\n`);
    expect(stderr).toBe(`${JSON.stringify(records[2])}\n`);
  });

  it('all arrive, in order, when the reader is slower than the writer (a full pipe)', async () => {
    // About 4 MB: far more than a pipe holds while the reader waits.
    const script = `
      const padding = 'x'.repeat(180);
      for (let n = 0; n < 20000; n += 1) {
        sink.jsonLinesSink({ time: 't', level: 'info', event: 'line', n, padding });
        if (n % 5000 === 4999) sink.jsonLinesSink({ time: 't', level: 'warn', event: 'warned', n });
      }
      sink.jsonLinesSink({ time: 't', level: 'info', event: 'last' });
    `;
    const { code, stdout, stderr } = await runScript(script, { pauseMs: 500 });
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.pop()).toBe('');
    const parsed = lines.map((line) => JSON.parse(line) as { event: string; n?: number });
    expect(parsed).toHaveLength(20001);
    expect(parsed.slice(0, -1).map((record) => record.n)).toEqual(Array.from({ length: 20000 }, (_, n) => n));
    expect(parsed.at(-1)).toEqual({ time: 't', level: 'info', event: 'last' });
    expect(
      stderr
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { n: number }).n),
    ).toEqual([4999, 9999, 14999, 19999]);
  });

  it('go through a console.log replaced before or after the sink loaded, as before', async () => {
    const capture = `(text) => process.stdout.write('captured ' + text.split('\\n').length + ' ' + text + '\\n')`;
    const before = await runScript(
      `
      sink.jsonLinesSink({ time: 't', level: 'info', event: 'one' });
      sink.jsonLinesSink({ time: 't', level: 'info', event: 'two' });
    `,
      { before: `console.log = ${capture};` },
    );
    expect(before.stdout).toBe(`captured 2 {"time":"t","level":"info","event":"one"}\n{"time":"t","level":"info","event":"two"}\n`);
    const after = await runScript(`
      sink.jsonLinesSink({ time: 't', level: 'info', event: 'direct' });
      sink.flushPendingLines();
      console.log = ${capture};
      sink.jsonLinesSink({ time: 't', level: 'info', event: 'captured' });
    `);
    expect(after.stdout).toBe(`{"time":"t","level":"info","event":"direct"}\ncaptured 1 {"time":"t","level":"info","event":"captured"}\n`);
  });
});
