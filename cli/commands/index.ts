import type { CommandDef } from 'citty';

const defaultExport = (module: { default: CommandDef<any> }) => module.default;

/**
 * The verbs of the CLI, each loaded only when it runs; a verb loads its library function only in
 * `run`, so `--help` stays fast.
 */
export const commands = {
  /** `actorkit new`: renders an actor from the template. */
  new: () => import('./new.js').then(defaultExport),
  /** `actorkit validate`: checks an actor's platform configuration. */
  validate: () => import('./validate.js').then(defaultExport),
  /** `actorkit publish`: builds, pushes and registers an actor image. */
  publish: () => import('./publish.js').then(defaultExport),
  /** `actorkit update`: brings an actor to a newer template. */
  update: () => import('./update.js').then(defaultExport),
  /** `actorkit dev`: runs an actor from source with reload and the playground. */
  dev: () => import('./dev.js').then(defaultExport),
  /** `actorkit eval`: runs the actor's eval cases and compares them with the baseline. */
  eval: () => import('./eval.js').then(defaultExport),
  /** `actorkit platform`: the hosting platform rehearsed on one machine. */
  platform: () => import('./platform.js').then(defaultExport),
  /** `actorkit help`: the help of a verb. */
  help: () => import('./help.js').then(defaultExport),
} as const;

/** The name of a CLI verb. */
export type CommandName = keyof typeof commands;
