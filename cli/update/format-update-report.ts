import { problemBullet } from '../validate/actor-problem.js';
import { CONFIGURATION_CHECKS } from '../validate/configuration-checks.js';
import { VENDOR_FOLDER } from '../render/actorkit-dependency.js';
import { templateLabel, versionLabel } from './template-version.js';
import type { UpdateActorReport } from './update-actor.js';

/**
 * The text `actorkit update` prints: the versions, one line per file by outcome (created,
 * updated, merged, conflicted, deleted, kept with why), then what to do next.
 * @param report the update's report.
 * @param shownDir the actor folder as the user would type it.
 */
export function formatUpdateReport(report: UpdateActorReport, shownDir: string): string {
  const { plan } = report;
  const lines = [
    `${report.dryRun ? 'Plan to update' : 'Updated'} ${shownDir}: ${templateLabel(report.from)} → ${versionLabel(report.to)}`,
  ];
  const sameBundled = report.from.actorkit !== undefined && report.from.actorkit === report.to.actorkit;
  if (sameBundled) lines.push(`  already at actorkit ${report.to.actorkit}'s template`);
  if (report.newQuestions.length > 0)
    lines.push(
      `  new questions: ${report.newQuestions.map((name) => `${name}=${String(report.answers[name])}`).join(', ')}`,
    );
  const row = (what: string, path: string) => lines.push(`  ${what.padEnd(11)} ${path}`);
  for (const path of plan.created) row('created', path);
  for (const path of plan.updated) row('updated', path);
  for (const path of plan.merged) row('merged', path);
  for (const path of plan.conflicted) row('conflicted', path);
  for (const path of plan.deleted) row('deleted', path);
  for (const kept of plan.kept) row('kept', `${kept.path} (${kept.reason})`);
  const changes =
    plan.created.length + plan.updated.length + plan.merged.length + plan.conflicted.length + plan.deleted.length;
  if (changes + plan.kept.length === 0)
    lines.push(
      `  nothing to change: ${sameBundled ? 'no answer changed' : 'the actor already has every change of the template'}`,
    );
  const installs = [...plan.created, ...plan.updated, ...plan.merged, ...plan.deleted].some(
    (path) => path === 'package.json' || path.startsWith(`${VENDOR_FOLDER}/`),
  );
  if (installs && !report.dryRun)
    lines.push(
      'package.json or the vendored actorkit changed: run `npm install` to bring node_modules and package-lock.json along',
    );
  if (report.dryRun) {
    lines.push(
      `Dry run: nothing was written.${plan.conflicted.length > 0 ? ` ${plan.conflicted.length} file(s) would get conflict markers.` : ''}`,
    );
  } else if (plan.conflicted.length > 0) {
    lines.push(
      `${plan.conflicted.length} conflict${plan.conflicted.length === 1 ? '' : 's'}: edit ${plan.conflicted.join(', ')} where git-style markers (<<<<<<< yours … ======= … >>>>>>> template) show both sides,`,
      `then run \`actorkit validate --write ${shownDir}\` and commit.`,
    );
  } else if (report.validation) {
    if (report.validation.status === 'ok')
      lines.push(`src/platform/config.json re-emitted and valid: ${CONFIGURATION_CHECKS}`, 'OK');
    else {
      lines.push(`src/platform/config.json is not valid: ${report.validation.problems.length} problem(s)`);
      for (const problem of report.validation.problems) lines.push(problemBullet(problem));
    }
  }
  return `${lines.join('\n')}\n`;
}
