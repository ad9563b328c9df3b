import { defineCommand } from 'citty';
import { CliError } from '../cli-error.js';
import type { CommandData } from './_shared.js';
import { printJson, sharedArgs, startCommand, verbMeta } from './_shared.js';

const args = {
  verb: {
    type: 'positional',
    description: 'The verb to explain (new, validate, publish, help); none for the list of verbs',
    required: false,
  },
  ...sharedArgs,
} as const;

/** `actorkit help [verb]`: prints the same help as `actorkit [verb] --help`. */
export default defineCommand({
  meta: verbMeta({
    name: 'help',
    description: 'Show the help of the CLI or of one verb',
    example: 'actorkit help new',
  }),
  args,
  async run(context) {
    const { io } = startCommand('help', context, args);
    const { renderHelp } = (context.data ?? {}) as CommandData;
    if (renderHelp === undefined)
      throw new CliError('refused', 'no_help', '`help` runs under runCli, which hands it the help text');
    const text = await renderHelp(context.args.verb);
    if (context.args.json) printJson(io, { status: 'ok', help: text });
    else io.stdout.write(text);
    return { status: 'ok' as const, help: text };
  },
});
