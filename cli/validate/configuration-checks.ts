import { PLATFORM_RULE_RANGE } from '../../src/sdk/index.js';

/** What a valid configuration passed, as `validate` and `update` print it: `… is valid: <this>`. */
export const CONFIGURATION_CHECKS = `platform schema v1 and rules ${PLATFORM_RULE_RANGE}`;
