import { renderUsage, type CommandDef, type CommandMeta } from 'citty';
import { CliError } from './cli-error.js';
import type { VerbMeta } from './commands/_shared.js';
import { commands, type CommandName } from './commands/index.js';
import { mainCommand } from './main-command.js';

/**
 * The help of the CLI (no verb) or of one verb: citty's usage, then the verb's extra help and its
 * `Example:` (see `verbMeta`). `actorkit --help`, `actorkit <verb> --help` and `actorkit help
 * [verb]` all print this. An unknown verb is a `refused` {@link CliError} (`unknown_command`).
 * @param verb the verb, or `undefined` for the CLI as a whole.
 * @example
 * process.stdout.write(await renderHelp('new'));
 */
export async function renderHelp(verb?: string): Promise<string> {
  if (verb === undefined) return `${await renderUsage(mainCommand)}\n`;
  if (!isVerb(verb)) throw unknownCommand(verb);
  const command = await commands[verb]();
  const meta = (await resolveMeta(command)) as Partial<VerbMeta>;
  const sections = [await renderUsage(command, mainCommand)];
  if (meta.moreHelp) sections.push(await meta.moreHelp());
  if (meta.example) sections.push(`Example:\n\n  $ ${meta.example}`);
  return `${sections.map((section) => section.replace(/\s+$/, '')).join('\n\n')}\n\n`;
}

/**
 * Whether a word is one of the CLI's verbs.
 * @param word the word typed where a verb goes.
 */
export function isVerb(word: string): word is CommandName {
  return Object.hasOwn(commands, word);
}

/**
 * The refusal of a word that is no verb, naming the verbs.
 * @param word the word typed where a verb goes.
 */
export function unknownCommand(word: string): CliError {
  return new CliError(
    'refused',
    'unknown_command',
    `unknown command '${word}' (the verbs are ${Object.keys(commands).join(', ')}; see \`actorkit --help\`)`,
  );
}

/**
 * Drops citty's colours when the stream is not a terminal (a file, a pipe, a test).
 * @param stream where the text goes.
 * @param text the text, perhaps with ANSI colours.
 */
export function forStream(stream: NodeJS.WritableStream, text: string): string {
  return (stream as { isTTY?: boolean }).isTTY === true ? text : text.replace(/\u001b\[[0-9;]*m/g, '');
}

async function resolveMeta(command: CommandDef<any>): Promise<CommandMeta> {
  const meta = command.meta;
  return (typeof meta === 'function' ? await meta() : await meta) ?? {};
}
