import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';

/** Asks a person at a terminal, one line at a time. */
export interface Prompter {
  /** Shows `prompt` and resolves the next line typed; `secret` hides what is typed. */
  ask(prompt: string, options?: { secret?: boolean }): Promise<string>;
  /** Prints one line next to the questions (hints, why an answer was refused). */
  say(line: string): void;
  close(): void;
}

/**
 * Creates a {@link Prompter} over node:readline that reads `io.stdin` and writes questions to
 * `io.stderr`, so standard output stays clean for `--json`. Ending the input while a question is
 * open rejects it with a `refused` {@link CliError} (code `input_closed`; Ctrl-C: `cancelled`).
 * @param io the streams of this run.
 */
export function createLinePrompter(io: Pick<CliIo, 'stdin' | 'stderr'>): Prompter {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stderr.write(chunk);
      done();
    },
  });
  const terminal = (io.stdin as { isTTY?: boolean }).isTTY === true;
  const lines = createInterface({ input: io.stdin, output, terminal });
  const queued: string[] = [];
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let closed = false;
  let ended = () => new CliError('refused', 'input_closed', 'the input ended before every question was answered');
  lines.on('SIGINT', () => {
    ended = () => new CliError('refused', 'cancelled', 'cancelled at the prompt (Ctrl-C); nothing was changed');
    io.stderr.write('\n');
    lines.close();
  });
  lines.on('line', (line) => {
    const next = waiting.shift();
    if (next) next.resolve(line);
    else queued.push(line);
  });
  lines.on('close', () => {
    closed = true;
    for (const next of waiting.splice(0)) next.reject(ended());
  });
  return {
    async ask(prompt, options = {}) {
      if (options.secret) {
        io.stderr.write(prompt);
        muted = true;
        lines.setPrompt('');
      } else lines.setPrompt(prompt);
      lines.prompt();
      try {
        const queuedLine = queued.shift();
        if (queuedLine !== undefined) return queuedLine;
        if (closed) throw ended();
        return await new Promise<string>((resolve, reject) => waiting.push({ resolve, reject }));
      } finally {
        if (options.secret) {
          muted = false;
          io.stderr.write('\n');
        }
      }
    },
    say(line) {
      io.stderr.write(`${line}\n`);
    },
    close() {
      lines.close();
    },
  };
}

/**
 * Asks a yes/no question; only `y` or `yes` (any case) counts as yes.
 * @param prompter where to ask.
 * @param question the question, without the `[y/N]` suffix.
 */
export async function confirm(prompter: Prompter, question: string): Promise<boolean> {
  const answer = await prompter.ask(`${question} [y/N] `);
  return /^\s*y(es)?\s*$/i.test(answer);
}
