import { relative } from 'node:path';
import { defineCommand } from 'citty';
import {
  printFailure,
  printJson,
  printWarnings,
  repeatedOption,
  sharedArgs,
  startCommand,
  verbMeta,
} from './_shared.js';

const args = {
  actor_dir: {
    type: 'positional',
    description: 'The actor folder to update (it holds .actorkit-answers.yml)',
    required: false,
    default: '.',
  },
  ref: {
    type: 'string',
    valueHint: 'git_ref',
    description:
      'Update to this tag, branch or SHA of the template repository (default: its highest release tag); the bundled template follows the installed actorkit',
  },
  data: {
    type: 'string',
    valueHint: 'KEY=VALUE',
    description: 'Change a recorded answer, or answer a new question; repeatable',
  },
  defaults: { type: 'boolean', description: 'Questions new in the target take their defaults instead of being asked' },
  'dry-run': {
    type: 'boolean',
    description: 'Print the plan (created, updated, merged, conflicted, deleted, kept) and write nothing',
  },
  force: { type: 'boolean', description: "Update even when the actor's git working tree has uncommitted changes" },
  trust: {
    type: 'boolean',
    description:
      'Render the template .actorkit-answers.yml names without asking (a template is code); needed without a terminal unless it is the bundled one or ACTORKIT_TEMPLATE_REPO',
  },
  ...sharedArgs,
} as const;

/** `actorkit update [actor_dir]`: brings an actor up to a newer template with a 3-way merge, keeping the author's changes. */
export default defineCommand({
  meta: verbMeta({
    name: 'update',
    description:
      "Bring an actor up to a newer template: merge the template's changes into your files (3-way), then re-emit and validate",
    example: 'actorkit update ./weather --ref v1.1.0 --defaults --dry-run',
  }),
  args,
  async run(context) {
    const { io, logger } = startCommand('update', context, args);
    const { updateActor } = await import('../update/update-actor.js');
    const result = await updateActor({
      actorDir: context.args.actor_dir,
      ref: context.args.ref,
      data: repeatedOption(context.rawArgs, 'data'),
      defaults: context.args.defaults === true,
      dryRun: context.args['dry-run'] === true,
      force: context.args.force === true,
      trust: context.args.trust === true,
      io,
      logger,
    });
    printWarnings(io, result.warnings);
    if (context.args.json) printJson(io, result);
    else if (!('plan' in result)) printFailure(io, result);
    else {
      const { formatUpdateReport } = await import('../update/format-update-report.js');
      io.stdout.write(formatUpdateReport(result, relative(io.cwd, result.actorDir) || '.'));
    }
    return result;
  },
});
