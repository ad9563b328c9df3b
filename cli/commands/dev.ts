import { defineCommand } from 'citty';
import { printFailure, printJson, sharedArgs, startCommand, verbMeta } from './_shared.js';

const args = {
  dir: { type: 'positional', description: 'The actor folder to run', required: false, default: '.' },
  port: { type: 'string', description: 'The port to answer on (default: PORT, else 8080; 0 picks a free one)' },
  host: {
    type: 'string',
    description: 'The address to listen on (default 127.0.0.1; any other needs API_KEY_ENABLED=true and API_KEY)',
  },
  runtime: {
    type: 'string',
    description: "node (default: Node with tsx's loader, restarted on every change under src/) or bun (Bun's watcher)",
  },
  ...sharedArgs,
} as const;

/** `actorkit dev [dir]`: runs the actor from its source with reload, the playground and config checks on save, until Ctrl-C. */
export default defineCommand({
  meta: verbMeta({
    name: 'dev',
    description:
      'Run an actor from its TypeScript source: restart on save, the chat playground at /playground, the configuration checked on every change of src/actor.ts',
    example: 'actorkit dev . --port 3000',
  }),
  args,
  async run(context) {
    const { io } = startCommand('dev', context, args);
    const { runDev } = await import('../dev/run-dev.js');
    const { CliError, toCliFailure } = await import('../cli-error.js');
    const rawPort = context.args.port;
    if (rawPort !== undefined && !(/^\d+$/.test(rawPort.trim()) && Number(rawPort) <= 65_535)) {
      const failure = toCliFailure(
        new CliError(
          'refused',
          'bad_usage',
          `--port must be a number from 0 to 65535, got '${rawPort}' (see \`actorkit dev --help\`)`,
        ),
      );
      if (context.args.json) printJson(io, failure);
      else printFailure(io, failure);
      return failure;
    }
    const result = await runDev(context.args.dir, {
      ...(rawPort === undefined ? {} : { port: Number(rawPort) }),
      ...(context.args.host === undefined ? {} : { host: context.args.host }),
      ...(context.args.runtime === undefined ? {} : { runtime: context.args.runtime }),
      json: context.args.json === true,
      io,
    });
    if (!('urls' in result)) {
      if (context.args.json) printJson(io, result);
      else printFailure(io, result);
    }
    return result;
  },
});
