import { SECRET_ENVIRONMENT_VARIABLES } from './environment-variables.js';

const PLACEHOLDER = /^\$\{(secret:)?([A-Za-z_][A-Za-z0-9_]*)\}$/;

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

/** A `deployment.env` placeholder taken apart: the variable it names, and whether it is a secret. */
export interface EnvironmentPlaceholder {
  readonly name: string;
  readonly secret: boolean;
}

/**
 * Takes a `deployment.env` value apart when it is a placeholder: `${NAME}` is `{name, secret: false}`,
 * `${secret:NAME}` is `{name, secret: true}`; any other value is `undefined`.
 * @param value a value of `deployment.env`
 */
export function parseEnvironmentPlaceholder(value: string): EnvironmentPlaceholder | undefined {
  const match = PLACEHOLDER.exec(value.trim());
  return match ? { name: match[2] as string, secret: match[1] !== undefined } : undefined;
}
