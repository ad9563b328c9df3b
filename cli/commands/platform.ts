import { defineCommand } from 'citty';
import { CliError, toCliFailure, type CliFailure } from '../cli-error.js';
import { DEFAULT_MESH_GROUP, DEFAULT_PLATFORM_PORT, DEFAULT_SECRETS_FILE, DEFAULT_STATE_DIR } from '../platform/platform-defaults.js';
import { printFailure, printJson, problemBullet, repeatedOption, sharedArgs, startCommand, verbMeta } from './_shared.js';

const args = {
  dirs: { type: 'positional', description: 'The actor folders to host (one or more)', required: true, valueHint: 'dir...' },
  port: { type: 'string', description: `The platform port on 127.0.0.1 (default ${DEFAULT_PLATFORM_PORT}; 0 picks a free one)` },
  replicas: { type: 'string', description: "Replicas per actor (default: each actor's deployment.replicas.min); more than 1 needs PostgreSQL" },
  'database-url': { type: 'string', valueHint: 'postgres://…', description: 'The PostgreSQL all replicas share, one schema per actor (default: DATABASE_URL, else SQLite)' },
  secrets: { type: 'string', valueHint: 'file', description: `NAME=value lines that fill \${secret:NAME}, mode 0600 (default: <state dir>/${DEFAULT_SECRETS_FILE})` },
  'state-dir': { type: 'string', valueHint: 'dir', description: `Where mesh keys and SQLite files are kept (default ${DEFAULT_STATE_DIR})` },
  'mesh-group': { type: 'string', valueHint: 'ref=group', description: `Put a mesh actor in another group than \`${DEFAULT_MESH_GROUP}\` (repeatable)` },
  ...sharedArgs,
} as const;

/** A whole number from `min` to `max` given as an option, or a `bad_usage` refusal naming it. */
function wholeNumber(raw: string | undefined, option: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!(/^\d+$/.test(raw.trim()) && Number(raw) >= min && Number(raw) <= max)) {
    throw new CliError('refused', 'bad_usage', `--${option} must be a number from ${min} to ${max}, got '${raw}' (see \`actorkit platform --help\`)`);
  }
  return Number(raw);
}

/** `--mesh-group ref=group` pairs as a record, or a `bad_usage` refusal. */
function meshGroups(pairs: readonly string[]): Record<string, string> {
  const groups: Record<string, string> = {};
  for (const pair of pairs) {
    const match = /^([a-z0-9][a-z0-9-]*)=([a-z0-9][a-z0-9-]*)$/.exec(pair);
    if (match === null) throw new CliError('refused', 'bad_usage', `--mesh-group takes ref=group (lower-case letters, digits, dashes), got '${pair}'`);
    groups[match[1] as string] = match[2] as string;
  }
  return groups;
}

/** `actorkit platform <dir...>`: hosts actor folders as the platform does, until Ctrl-C. */
export default defineCommand({
  meta: verbMeta({
    name: 'platform',
    description: 'Host actors as the platform does: platform mode, secrets, replicas on PostgreSQL behind readiness-gated round-robin, mesh keys, the gateway',
    example: 'actorkit platform ./weather ./news --replicas 2 --database-url postgres://localhost/actors',
  }),
  args,
  async run(context) {
    const { io } = startCommand('platform', context, args, true);
    const json = context.args.json === true;
    const dirs = (context.args._ ?? []).map(String);
    let result: Awaited<ReturnType<typeof import('../platform/run-platform.js').runPlatform>> | CliFailure;
    try {
      const { runPlatform } = await import('../platform/run-platform.js');
      const port = wholeNumber(context.args.port, 'port', 0, 65_535);
      const replicas = wholeNumber(context.args.replicas, 'replicas', 1, 64);
      const groups = meshGroups(repeatedOption(context.rawArgs, 'mesh-group'));
      result = await runPlatform(dirs, {
        ...(port === undefined ? {} : { port }),
        ...(replicas === undefined ? {} : { replicas }),
        ...(context.args['database-url'] === undefined ? {} : { databaseUrl: context.args['database-url'] }),
        ...(context.args.secrets === undefined ? {} : { secretsFile: context.args.secrets }),
        ...(context.args['state-dir'] === undefined ? {} : { stateDir: context.args['state-dir'] }),
        meshGroups: groups,
        json,
        io,
      });
    } catch (error) {
      result = toCliFailure(error);
    }
    if (result.status !== 'ok') {
      if (json) printJson(io, result);
      else {
        printFailure(io, result);
        for (const problem of 'problems' in result ? result.problems : []) io.stderr.write(`${problemBullet(problem)}\n`);
      }
    }
    return result;
  },
});
