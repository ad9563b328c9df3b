import type { ArgsDef, CommandContext, CommandMeta } from 'citty';
import type { Logger } from '../../src/index.js';
import { CliError, type CliFailure } from '../cli-error.js';
import { resolveCliIo, type CliIo } from '../cli-io.js';
import { ACTOR_ID_REFUSAL } from '../render/data-pairs.js';

/** Options every verb takes. */
export const sharedArgs = {
  json: { type: 'boolean', description: 'Print one JSON object on standard output instead of text' },
} as const satisfies ArgsDef;

/** The `meta` of a verb: citty's fields, the example its help ends with, and any help computed when asked. */
export interface VerbMeta extends CommandMeta {
  /** One command line that works as written, shown under `Example:` by `--help` and `actorkit help <verb>`. */
  readonly example: string;
  /** Help text computed when help is asked for, printed before the example (`new` lists the template's questions). */
  readonly moreHelp?: () => Promise<string>;
}

/**
 * Declares a verb's `meta` with its example (citty keeps and ignores the extra fields).
 * @param meta the name, description, example and optional extra help of the verb.
 * @example
 * defineCommand({ meta: verbMeta({ name: 'validate', description: 'Check an actor', example: 'actorkit validate .' }), args, run });
 */
export function verbMeta(meta: VerbMeta): CommandMeta {
  return meta;
}

/** What `runCli` hands a command through citty's `data` (tests pass memory streams here). */
export interface CommandData {
  readonly io?: Partial<CliIo>;
  readonly logger?: Logger;
  /**
   * The help text of the CLI or of one verb as standard output shows it, which the `help` verb
   * prints: `runCli` hands its own (the verb table knows every verb, `help` among them, so the
   * verb cannot import it back).
   */
  readonly renderHelp?: (verb?: string) => Promise<string>;
}

/**
 * Starts a command run: checks the usage (see {@link checkUsage}) and returns the streams and
 * logger handed over by `runCli`, else those of the current process and no logger (each library
 * function then logs nothing).
 * @param verb the command name.
 * @param context citty's context of the run.
 * @param args the command's argument definitions.
 * @param variadic whether the last positional argument takes any number of values (`platform <dir...>`).
 */
export function startCommand(
  verb: string,
  context: Pick<CommandContext, 'data' | 'rawArgs'>,
  args: ArgsDef,
  variadic = false,
): { io: CliIo; logger: Logger | undefined } {
  checkUsage(verb, context.rawArgs, args, variadic);
  const data = (context.data ?? {}) as CommandData;
  return { io: resolveCliIo(data.io), logger: data.logger };
}

/**
 * Refuses what citty lets through: unknown options (`--actor-id` gets the identity
 * explanation), options missing their value, and extra arguments (code `bad_usage`).
 * @param verb the command name, for the `--help` hint.
 * @param rawArgs the arguments after the verb.
 * @param args the command's argument definitions.
 * @param variadic whether the last positional argument takes any number of values.
 */
export function checkUsage(verb: string, rawArgs: readonly string[], args: ArgsDef, variadic = false): void {
  const valued = new Set<string>();
  const flags = new Set<string>();
  let positionals = 0;
  for (const [name, definition] of Object.entries(args)) {
    if (definition.type === 'positional') positionals += 1;
    else (definition.type === 'boolean' ? flags : valued).add(name);
  }
  const extra: string[] = [];
  for (let index = 0; index < rawArgs.length; index++) {
    const arg = rawArgs[index] as string;
    if (arg === '--') {
      extra.push(...rawArgs.slice(index + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      extra.push(arg);
      continue;
    }
    const [flag = '', inline] = splitOnce(arg, '=');
    const name = flag.replace(/^--?/, '');
    if (valued.has(name)) {
      if (inline === undefined && (index + 1 >= rawArgs.length || rawArgs[index + 1]?.startsWith('--'))) {
        throw usage(verb, `${flag} needs a value`);
      }
      if (inline === undefined) index += 1;
    } else if (!(flags.has(name) || (name.startsWith('no-') && flags.has(name.slice(3))))) {
      if (/^actor[-_]?id$/i.test(name)) throw new CliError('refused', 'actor_id_refused', ACTOR_ID_REFUSAL);
      throw usage(verb, `unknown option ${flag}`);
    }
  }
  if (!variadic && extra.length > positionals) throw usage(verb, `unexpected argument '${extra[positionals]}'`);
}

/**
 * Collects every value of a repeatable option (`--data a=1 --data b=2`); citty keeps only the last.
 * @param rawArgs the arguments after the verb.
 * @param name the option name without dashes.
 */
export function repeatedOption(rawArgs: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < rawArgs.length; index++) {
    const arg = rawArgs[index] as string;
    if (arg === '--') break;
    if (arg === `--${name}`) {
      const value = rawArgs[index + 1];
      if (value !== undefined) values.push(value);
      index += 1;
    } else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
  }
  return values;
}

/** Writes a result as one pretty JSON object and a newline. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Writes a refusal or failure as `error: <message>` on standard error. */
export function printFailure(io: CliIo, failure: CliFailure): void {
  io.stderr.write(`error: ${failure.message}\n`);
}

/** Writes each warning as `warning: <text>` on standard error. */
export function printWarnings(io: CliIo, warnings: readonly string[]): void {
  for (const warning of warnings) io.stderr.write(`warning: ${warning}\n`);
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index < 0 ? [text, undefined] : [text.slice(0, index), text.slice(index + 1)];
}

function usage(verb: string, message: string): CliError {
  return new CliError('refused', 'bad_usage', `${message} (see \`actorkit ${verb} --help\`)`);
}
