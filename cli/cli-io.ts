/** The streams, environment and working directory one CLI run talks to; tests pass their own. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  /** Whether a person sits at a terminal, so the CLI may ask questions. */
  readonly interactive: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/**
 * Fills the parts of a {@link CliIo} that are not given from the current process.
 * @param io the parts a caller wants to replace (tests pass memory streams and an environment).
 */
export function resolveCliIo(io: Partial<CliIo> = {}): CliIo {
  return {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    stdin: io.stdin ?? process.stdin,
    interactive: io.interactive ?? (process.stdin.isTTY === true && process.stderr.isTTY === true),
    env: io.env ?? process.env,
    cwd: io.cwd ?? process.cwd(),
  };
}
