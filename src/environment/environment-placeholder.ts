import { SECRET_ENVIRONMENT_VARIABLES } from './environment-variables.js';

/** Every placeholder of a value: `${NAME}` or `${secret:NAME}`, the name captured second. */
const PLACEHOLDERS = /\$\{(secret:)?([A-Za-z_][A-Za-z0-9_]*)\}/g;
const PLACEHOLDER = new RegExp(`^${PLACEHOLDERS.source}$`);

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

/**
 * Replaces every `${NAME}` and `${secret:NAME}` in a `deployment.env` value with what `fill`
 * gives for it (the platform's own environment, or its secret store).
 * @param value the value as `config.json` holds it
 * @param fill the value of one placeholder, told its name and whether it is a secret
 */
export function fillEnvironmentPlaceholders(value: string, fill: (name: string, secret: boolean) => string): string {
  return value.replace(PLACEHOLDERS, (_match, secret: string | undefined, name: string) =>
    fill(name, secret !== undefined),
  );
}
