import { valid } from 'semver';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { ownPackage } from '../package-root.js';
import { confirm, createLinePrompter } from '../prompt/line-prompter.js';
import { vendoredActorkit } from '../render/actorkit-dependency.js';
import { ANSWERS_FILE, type AnswersRecord } from '../render/answers-file.js';
import { defaultTemplateRepository, TEMPLATE_REPO_ENV } from '../render/template-source.js';

/**
 * The templates an update of this actor would render that the user has not named themselves, each
 * as the CLI names it; empty when every one is trusted. Trusted without asking: the template
 * bundled with the running actorkit, and the repository `new` renders by default (`ACTORKIT_TEMPLATE_REPO`,
 * else actorkit's own), whether recorded as a repository or a `--local` checkout. Anything else comes from the actor folder — a repository or `--local` checkout
 * its `.actorkit-answers.yml` records, or the template of another actorkit version, fetched as the
 * actor's files configure it — and a template is code: it runs while it renders.
 * @param record the actor's answers file.
 * @param io the environment and working folder (for `ACTORKIT_TEMPLATE_REPO`).
 */
export function templatesNeedingTrust(record: AnswersRecord, io: Pick<CliIo, 'env' | 'cwd'>): string[] {
  if (record.source === 'bundled') {
    const running = ownPackage().version;
    // Not a version: no template can be fetched for it, and the fetch refuses it before anything renders.
    return record.actorkit_version === running || valid(record.actorkit_version) === null
      ? []
      : [
          `the template of actorkit ${record.actorkit_version}${vendoredIn(record)}, which ${ANSWERS_FILE} records (the running actorkit ${running} brings only its own)`,
        ];
  }
  if (record.location === defaultTemplateRepository(io)) return [];
  const what = record.source === 'local' ? 'the local template checkout' : 'the template repository';
  return [`${what} ${record.location}, which ${ANSWERS_FILE} names (${TEMPLATE_REPO_ENV} does not)`];
}

/** Where the actor carries the recorded actorkit, as the trust question names it: ` in vendor/actorkit-<version>.tgz`, or nothing. */
function vendoredIn(record: AnswersRecord): string {
  const vendored = vendoredActorkit(record.rendered_with?.actorkit_dependency);
  return vendored === undefined ? '' : ` in ${vendored.path}`;
}

/** How {@link confirmTemplateTrust} may get the user's consent. */
export interface TrustConsent {
  /** `--trust`: render without asking. */
  readonly trust: boolean;
  /** The streams of this run; a question is asked only when `interactive`. */
  readonly io: Pick<CliIo, 'interactive' | 'stdin' | 'stderr'>;
  readonly progress: (line: string) => void;
}

/**
 * Lets an update render templates the user has not named only with their consent: `--trust`, or
 * a yes at the terminal after the sources are named. Otherwise a `refused` {@link CliError}
 * (`untrusted_template`) that names them; nothing has been fetched or written yet.
 * @param sources what {@link templatesNeedingTrust} found.
 * @param consent the `--trust` flag and the terminal.
 */
export async function confirmTemplateTrust(sources: readonly string[], consent: TrustConsent): Promise<void> {
  if (sources.length === 0) return;
  const named = sources.join('; and ');
  const why = 'a template is code: rendering it runs it with your rights';
  if (consent.trust) return consent.progress(`rendering ${named}: trusted with --trust`);
  if (consent.io.interactive) {
    const prompter = createLinePrompter(consent.io);
    try {
      prompter.say(`update renders ${named}.`);
      prompter.say(`${why[0]?.toUpperCase()}${why.slice(1)}; render it only if you trust where it comes from.`);
      if (await confirm(prompter, 'Render it?')) return;
    } finally {
      prompter.close();
    }
    throw new CliError('refused', 'untrusted_template', `not trusted at the prompt: ${named}; nothing was written`);
  }
  throw new CliError(
    'refused',
    'untrusted_template',
    `update would render ${named}, and ${why}; nothing was written. Check that source, then run update again with --trust (or at a terminal, answer its question)`,
  );
}
