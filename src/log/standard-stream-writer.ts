/** Writes one or more lines (joined by `\n`, without the last one's `\n`) to a standard stream, as `console.log(text)` would. */
export type LineWriter = (text: string) => void;

/** What the writer needs of Node's `process`, looked up at run time: other runtimes go through `console`. */
interface NodeStream {
  readonly fd?: unknown;
  readonly writableLength?: number;
  write(chunk: Uint8Array, callback: (error?: Error | null) => void): boolean;
  once(event: 'error', listener: () => void): unknown;
  removeListener(event: 'error', listener: () => void): unknown;
}

interface NodeHost {
  readonly versions?: { readonly bun?: string; readonly deno?: string };
  readonly stdout?: NodeStream;
  readonly stderr?: NodeStream;
  getBuiltinModule?(id: 'node:fs'): { writeSync(fd: number, data: string | Uint8Array, offset?: number): number } | undefined;
}

const host = (globalThis as { process?: NodeHost }).process;
/** `node:fs`'s `writeSync` on Node (not Bun or Deno, whose consoles the sink keeps), else undefined. */
const writeSync = host?.versions?.bun === undefined && host?.versions?.deno === undefined ? host?.getBuiltinModule?.('node:fs')?.writeSync : undefined;
const encoder = new TextEncoder();
const ignoreError = () => {};

/**
 * A `LineWriter` for standard output (`'log'`) or standard error (`'error'`). On Node, while
 * the global console is Node's own and writes to this process's stream, and that stream holds
 * nothing queued, the text and its `\n` go to the file descriptor in one `write` call: the same
 * bytes `console` would write, without its formatting and stream machinery for each call. When
 * the descriptor cannot take all of it (a full non-blocking pipe), the rest is handed to the
 * stream, which queues it; the next lines then go through `console`, after it, until the queue
 * is empty. Anywhere else — Bun, Deno, a console replaced by a test's spy or a capture, a stream
 * without a descriptor — it is `console.log` or `console.error`, as before.
 * @param method the `console` method whose stream the lines go to
 */
export function standardStreamWriter(method: 'log' | 'error'): LineWriter {
  const stream = method === 'log' ? host?.stdout : host?.stderr;
  const nodeConsole = console as Console & { readonly _stdout?: unknown; readonly _stderr?: unknown };
  const consoleWrite = console[method];
  // Node's own method is native code (the inspector's wrapper, or a bound function): a
  // replacement made before this module loaded is JavaScript, and keeps getting the lines.
  const direct = writeSync !== undefined && isNativeFunction(consoleWrite) && stream !== undefined && typeof stream.fd === 'number';
  const consoleStream = () => (method === 'log' ? nodeConsole._stdout : nodeConsole._stderr);
  return function writeLines(text) {
    if (!direct || console[method] !== consoleWrite || consoleStream() !== stream || stream.writableLength !== 0) {
      console[method](text);
      return;
    }
    writeToDescriptor(stream, stream.fd as number, `${text}\n`);
  };
}

function isNativeFunction(value: unknown): boolean {
  return typeof value === 'function' && Function.prototype.toString.call(value).includes('[native code]');
}

/** Writes `text` to `fd` at once; what the descriptor does not take goes to `stream`, queued in order, its errors ignored as `console` ignores them. */
function writeToDescriptor(stream: NodeStream, fd: number, text: string): void {
  const bytes = encoder.encode(text);
  let written = 0;
  try {
    while (written < bytes.length) {
      const taken = writeSync!(fd, bytes, written);
      if (taken <= 0) break;
      written += taken;
    }
    if (written === bytes.length) return;
  } catch {
    // EAGAIN (a full pipe) or the like: the rest goes to the stream.
  }
  stream.once('error', ignoreError);
  try {
    stream.write(bytes.subarray(written), ignoreError);
  } finally {
    stream.removeListener('error', ignoreError);
  }
}
