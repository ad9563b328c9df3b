import { loadTemplateConfig, type TemplateQuestion } from './template-config.js';
import { bundledTemplateDir } from './template-source.js';

/**
 * The questions of the bundled template as `new --help` lists them: each `--data` key with its
 * type or choices, its default (a computed default shows its nunjucks expression) and its help.
 */
export async function bundledQuestionsHelp(): Promise<string> {
  const config = await loadTemplateConfig(bundledTemplateDir());
  const asked = config.questions.filter((question) => question.name !== 'actor_name');
  const lines = [
    'Questions of the bundled template (answer with --data KEY=VALUE; a template from --local or ACTORKIT_TEMPLATE_REPO has its own):',
    '',
  ];
  for (const question of asked) lines.push(...describeQuestion(question));
  return lines.join('\n');
}

/**
 * One question of `new --help`: `  name  type  default: value`, then its help indented below.
 * @param question the question to describe.
 */
export function describeQuestion(question: TemplateQuestion): string[] {
  const kind = question.choices ? question.choices.map((choice) => String(choice.value)).join('|') : question.type;
  const shown = question.secret
    ? 'secret'
    : question.default === undefined
      ? 'required'
      : `default: ${JSON.stringify(question.default)}`;
  const lines = [`  ${question.name.padEnd(30)} ${kind.padEnd(9)} ${shown}`];
  if (question.help) lines.push(`      ${question.help}`);
  return lines;
}
