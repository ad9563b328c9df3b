import { PassThrough } from 'node:stream';
import type { CliIo } from '../../../cli/cli-io.js';

/** A CliIo over memory streams, with the text written so far. */
export interface MemoryIo {
  readonly io: CliIo;
  readonly stdin: PassThrough;
  stdout(): string;
  stderr(): string;
}

/** Creates memory streams for one CLI run; `interactive` defaults to false (no terminal). */
export function memoryIo(options: {
  cwd: string;
  env?: Record<string, string | undefined>;
  interactive?: boolean;
}): MemoryIo {
  const stdin = new PassThrough();
  const out = collect();
  const err = collect();
  return {
    io: {
      stdin,
      stdout: out.stream,
      stderr: err.stream,
      interactive: options.interactive ?? false,
      env: options.env ?? { PATH: process.env.PATH, HOME: process.env.HOME },
      cwd: options.cwd,
    },
    stdin,
    stdout: () => out.text(),
    stderr: () => err.text(),
  };
}

function collect(): { stream: PassThrough; text(): string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}
