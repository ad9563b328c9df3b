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
  actor_name: {
    type: 'positional',
    description: 'Name of the new actor (the template question actor_name)',
    required: true,
  },
  target_dir: {
    type: 'positional',
    description: 'Folder to create; must not exist or be empty (default: ./<actor_slug>)',
    required: false,
  },
  local: { type: 'string', valueHint: 'path', description: 'Render a local git checkout of the template at its HEAD' },
  ref: {
    type: 'string',
    valueHint: 'git_ref',
    description: 'Render this tag, branch or SHA of the template repository',
  },
  offline: {
    type: 'boolean',
    description:
      'Render the template bundled with actorkit without trying the template repository (default: the repository at its latest tag, the bundled copy when it cannot be reached)',
  },
  data: { type: 'string', valueHint: 'KEY=VALUE', description: 'Answer a template question; repeatable' },
  defaults: { type: 'boolean', description: 'Accept the template defaults instead of asking' },
  ...sharedArgs,
} as const;

/** `actorkit new <actor_name> [target_dir]`: renders a new actor from the actor template. */
export default defineCommand({
  meta: verbMeta({
    name: 'new',
    description: 'Render a new actor from the actor template',
    example: 'actorkit new "Weather Bot" --defaults --data domain_module=weather --data include_panel=true',
    moreHelp: async () => (await import('../render/question-help.js')).bundledQuestionsHelp(),
  }),
  args,
  async run(context) {
    const { io, logger } = startCommand('new', context, args);
    const { renderActor } = await import('../render/render-actor.js');
    const result = await renderActor({
      actorName: context.args.actor_name,
      targetDir: context.args.target_dir,
      local: context.args.local,
      ref: context.args.ref,
      offline: context.args.offline === true,
      data: repeatedOption(context.rawArgs, 'data'),
      defaults: context.args.defaults === true,
      io,
      logger,
    });
    printWarnings(io, result.warnings);
    if (context.args.json) printJson(io, result);
    else if (result.status !== 'ok') printFailure(io, result);
    else {
      const from = result.source.ref ? `${result.source.location} at ${result.source.ref}` : result.source.location;
      io.stdout.write(
        `Rendered ${result.actorName} into ${result.targetDir}\n  template: ${from}\n\n${result.closingMessage}\n`,
      );
    }
    return result;
  },
});
