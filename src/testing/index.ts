/**
 * `actorkit/testing`: test factories for actors, for vitest.
 * @module actorkit/testing
 */
export { createTestActor, testActorDefinition } from './create-test-actor.js';
export { makeContractTests, type ContractTestRegistrar, type OpenApiSource } from './make-contract-tests.js';
export { configDifferences, makeConfigConsistencyTests } from './config-consistency.js';
export {
  describeStoreContract,
  type StoreContractSubject,
  type StoreHarness,
  type TestStore,
} from './describe-store-contract.js';
export { invocation } from './test-invocation.js';
export {
  approvals,
  type AnswerOptions,
  type ApprovalDecision,
  type PendingApproval,
  type RequestableActor,
} from './script-approvals.js';
export {
  checkTopicContract,
  endpointLabel,
  RECOMMENDED_ENDPOINTS,
  REQUIRED_ENDPOINTS,
  type ContractEndpoint,
  type TopicContractReport,
} from '../config/topic-contract.js';
export { assertPinnedPhrases, findPinnedPhraseProblems, type PromptSet } from './assert-pinned-phrases.js';
export {
  assertNoForbiddenVerbs,
  findForbiddenVerbs,
  nameWords,
  type ForbiddenVerbHit,
  type ForbiddenVerbOptions,
} from './assert-no-forbidden-verbs.js';
