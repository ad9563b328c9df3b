import { SECRET_ENVIRONMENT_VARIABLES } from './environment-variables.js';

const PLACEHOLDER = /^\$\{(?:secret:)?[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * The value `deployment.env` of `config.json` gives a variable the platform must set: `${NAME}`,
 * or `${secret:NAME}` for a secret (the platform fills it from its secret store; the value
 * never sits in `config.json`).
 * @param name the variable, e.g. `MESH_KEY`
 */
export function environmentPlaceholder(name: string): string {
  return SECRET_ENVIRONMENT_VARIABLES.has(name) ? `\${secret:${name}}` : `\${${name}}`;
}

/** Whether `value` is still a `deployment.env` placeholder that nobody replaced. */
export function isEnvironmentPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value.trim());
}
