import type { CommandDef } from 'citty';

const defaultExport = (module: { default: CommandDef<any> }) => module.default;

/**
 * The verbs of the CLI, each loaded only when it runs; a verb loads its library function only in
 * `run`, so `--help` stays fast.
 */
export const commands = {
  new: () => import('./new.js').then(defaultExport),
  validate: () => import('./validate.js').then(defaultExport),
  publish: () => import('./publish.js').then(defaultExport),
  update: () => import('./update.js').then(defaultExport),
  dev: () => import('./dev.js').then(defaultExport),
  eval: () => import('./eval.js').then(defaultExport),
  platform: () => import('./platform.js').then(defaultExport),
  help: () => import('./help.js').then(defaultExport),
} as const;

/** The name of a CLI verb. */
export type CommandName = keyof typeof commands;
