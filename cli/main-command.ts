import { defineCommand } from 'citty';
import { commands } from './commands/index.js';
import { ownPackage } from './package-root.js';

/** The `actorkit` command: the verbs `new`, `validate`, `eval`, `publish`, `update`, `dev`, `platform` and `help`, loaded lazily. */
export const mainCommand = defineCommand({
  meta: () => ({
    name: 'actorkit',
    version: ownPackage().version,
    description: 'Write, check and ship chat actors: new → validate → publish',
  }),
  subCommands: commands,
});
