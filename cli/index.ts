/**
 * `actorkit/cli`: the citty commands of `actorkit` and, from `actorkit/cli/library`, the library
 * functions under them.
 * @module actorkit/cli
 */

// Commands
export { mainCommand } from './main-command.js';
export { commands, type CommandName } from './commands/index.js';
export { default as newCommand } from './commands/new.js';
export { default as validateCommand } from './commands/validate.js';
export { default as publishCommand } from './commands/publish.js';
export { default as updateCommand } from './commands/update.js';
export { default as devCommand } from './commands/dev.js';
export { default as platformCommand } from './commands/platform.js';
export { default as helpCommand } from './commands/help.js';
export { runCli, EXIT_CODES } from './run-cli.js';
export { renderHelp } from './help-text.js';
export { verbMeta, type VerbMeta } from './commands/_shared.js';

// The library functions under the commands (`actorkit/cli/library`, which loads no command)
export * from './library.js';
