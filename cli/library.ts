/**
 * `actorkit/cli/library`: the library functions under the CLI's verbs — render, validate,
 * update, publish, dev — with their result objects, errors and streams, without the citty
 * commands. A script, or the local platform, uses them without loading the CLI's verbs.
 * @module actorkit/cli/library
 */

// Results, errors and streams
export { CliError, toCliFailure, type CliFailure, type CliStatus } from './cli-error.js';
export { resolveCliIo, type CliIo } from './cli-io.js';

// new
export {
  renderActor,
  type RenderActorOptions,
  type RenderActorResult,
  type RenderActorSuccess,
} from './render/render-actor.js';
export {
  fetchTemplateSource,
  TEMPLATE_REPO_ENV,
  type TemplateSource,
  type TemplateSourceKind,
} from './render/template-source.js';
export {
  loadTemplateConfig,
  type TemplateConfig,
  type TemplateQuestion,
  type QuestionType,
} from './render/template-config.js';
export { passesValidator, ANSWER_FORMATS, type AnswerValidator, type AnswerFormat } from './render/answer-validator.js';
export { highestReleaseTag } from './render/release-tag.js';
export { ANSWERS_FILE } from './render/answers-file.js';

// validate
export {
  validateActorDir,
  type ValidateActorOptions,
  type ValidateActorResult,
  type ActorProblem,
  type ActorkitUsed,
} from './validate/validate-actor-dir.js';
export { problemBullet } from './validate/actor-problem.js';
export { configFileProblems } from './validate/config-file-problems.js';

// update
export {
  updateActor,
  type UpdateActorOptions,
  type UpdateActorResult,
  type UpdateActorReport,
} from './update/update-actor.js';
export type { TemplateVersion } from './update/template-version.js';
export type { UpdatePlan, KeptFile } from './update/plan-update.js';
// dev
export { runDev, type RunDevOptions, type RunDevResult, type DevUrls } from './dev/run-dev.js';
export type { DevRuntime } from './dev/dev-runtime.js';

// publish
export {
  publishActor,
  type PublishActorOptions,
  type PublishActorSuccess,
  type PublishActorFailure,
} from './publish/publish-actor.js';
export {
  chooseContainerCli,
  type ContainerCliNeed,
  containerCommands,
  CONTAINER_CLI_ENV,
  CONTAINER_CLIS,
} from './publish/container-commands.js';
export {
  DEFAULT_PLATFORM_URL,
  PLATFORM_URL_ENV,
  REGISTER_ACTOR_PATH,
  registrationSteps,
} from './publish/registration-steps.js';
export {
  actorImageRepository,
  actorImageTag,
  readActorPackage,
  type ActorPackage,
} from './publish/actor-image.js';

// Child actors: what \`dev\` and the local platform start their actors with
export { EXIT_WITH_PARENT_PRELOAD, freeLocalPort, signalProcess } from './child-process.js';
