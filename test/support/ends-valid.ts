import { CONFIGURATION_CHECKS } from '../../cli/validate/configuration-checks.js';

/** The end of `actorkit validate`'s output for a valid configuration: its validity line and `OK`. */
export const ENDS_VALID = new RegExp(`is valid: ${CONFIGURATION_CHECKS}\\nOK\\n$`);
