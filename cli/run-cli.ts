import { runCommand } from 'citty';
import { toCliFailure, type CliStatus } from './cli-error.js';
import { resolveCliIo } from './cli-io.js';
import type { CommandData } from './commands/_shared.js';
import { commands } from './commands/index.js';
import { forStream, isVerb, renderHelp, unknownCommand } from './help-text.js';
import { ownPackage } from './package-root.js';

/** The process exit code of each outcome: 0 success, 1 the check or publish failed, 2 refused or bad usage. */
export const EXIT_CODES: Readonly<Record<CliStatus, number>> = { ok: 0, failed: 1, refused: 2 };

/**
 * Runs the CLI on an argument list and returns the exit code; the only place that decides it.
 * Handles `--help`/`-h` on every verb (the same text as `actorkit help <verb>`), `--version`, unknown verbs and citty's usage errors (2);
 * each verb returns a result object whose `status` maps through {@link EXIT_CODES}.
 * @param argv the arguments after the program name.
 * @param options the streams and logger to use (default: the current process).
 * @example
 * process.exitCode = await runCli(process.argv.slice(2));
 */
export async function runCli(argv: readonly string[], options: CommandData = {}): Promise<number> {
  const io = resolveCliIo(options.io);
  const end = argv.indexOf('--') < 0 ? argv.length : argv.indexOf('--');
  const flags = argv.slice(0, end);
  const wantsHelp = flags.includes('--help') || flags.includes('-h');
  const verbIndex = argv.findIndex((arg) => !arg.startsWith('-'));
  const verb = verbIndex < 0 || verbIndex >= end ? undefined : (argv[verbIndex] as string);
  try {
    if (verb === undefined) {
      if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
        io.stdout.write(`${ownPackage().version}\n`);
        return EXIT_CODES.ok;
      }
      const stream = wantsHelp ? io.stdout : io.stderr;
      stream.write(forStream(stream, await renderHelp()));
      return wantsHelp ? EXIT_CODES.ok : EXIT_CODES.refused;
    }
    if (!isVerb(verb)) {
      io.stderr.write(`error: ${unknownCommand(verb).message}\n`);
      return EXIT_CODES.refused;
    }
    if (wantsHelp) {
      io.stdout.write(forStream(io.stdout, await renderHelp(verb)));
      return EXIT_CODES.ok;
    }
    const command = await commands[verb]();
    const data: CommandData = {
      io,
      renderHelp: async (about) => forStream(io.stdout, await renderHelp(about)),
      ...(options.logger ? { logger: options.logger } : {}),
    };
    const { result } = await runCommand(command, { rawArgs: argv.slice(verbIndex + 1), data });
    const status = (result as { status?: CliStatus } | undefined)?.status ?? 'ok';
    return EXIT_CODES[status] ?? EXIT_CODES.failed;
  } catch (error) {
    const usageError = error instanceof Error && error.name === 'CLIError';
    const failure = usageError
      ? { status: 'refused' as const, code: 'bad_usage', message: `${error.message} (see \`actorkit ${verb} --help\`)` }
      : toCliFailure(error);
    if (flags.includes('--json')) io.stdout.write(`${JSON.stringify(failure, null, 2)}\n`);
    else io.stderr.write(`error: ${failure.message}\n`);
    return EXIT_CODES[failure.status];
  }
}
