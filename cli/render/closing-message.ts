import type { TemplateEngine } from './template-engine.js';

/**
 * What `new` prints after rendering: the template's `_message_after_new` rendered with the
 * answers and `target_dir` (the new folder as the user would type it, shell-quoted), else the
 * step every actor shares, `cd <dir> && actorkit validate .`. Surrounding blank lines are trimmed.
 * @param template the template's `_message_after_new`, if it has one.
 * @param engine the template's engine (so the message may `{% include %}` the template's partials).
 * @param context the answers and built-in variables.
 * @param shownDir the new folder, relative to the working folder when it is below it.
 */
export function closingMessage(
  template: string | undefined,
  engine: TemplateEngine,
  context: Record<string, unknown>,
  shownDir: string,
): string {
  const targetDir = shellQuote(shownDir);
  if (template === undefined) return `Next: cd ${targetDir} && actorkit validate .`;
  return engine
    .render(template, { ...context, target_dir: targetDir }, 'template.yml: _message_after_new')
    .replace(/^\s*\n|\s+$/g, '');
}

/**
 * Quotes a path for a POSIX shell when it holds anything but safe characters.
 * @param path the path to quote.
 */
function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
