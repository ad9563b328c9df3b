import { SECRET_MASK, ENVIRONMENT_VARIABLES, SECRET_ENVIRONMENT_VARIABLES } from '../../src/index.js';

/** What `actorkit dev` changes in the environment the actor runs with, unless the caller set it. */
const DEV_DEFAULTS = {
  /** The playground is on under `actorkit dev`. */
  PLAYGROUND_ENABLED: 'true',
  /** A restart should not wait long for a request that is still running. */
  SHUTDOWN_GRACE_MS: '2000',
} as const;

/**
 * The environment the actor runs with under `actorkit dev`: the caller's, the dev defaults
 * (playground on, a short shutdown grace) where the caller set nothing, and `PORT` and `HOST` set
 * to the actor's own loopback port behind the dev proxy (only the proxy is reachable from outside).
 * @param env the caller's environment
 * @param actorPort the port the actor listens on
 */
export function devEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  actorPort: number,
): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(DEV_DEFAULTS))
    if (merged[name] === undefined || merged[name] === '') merged[name] = value;
  merged.PORT = String(actorPort);
  merged.HOST = '127.0.0.1';
  return merged;
}

/**
 * The actor's variables that are set in `env`, in the README's order, each secret replaced by
 * the settings' mask: what `actorkit dev` prints as the environment it runs with.
 * @param env the environment the actor runs with
 * @param shownPort the port to show as `PORT` (the dev proxy's, where people connect)
 */
export function shownEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  shownPort: number,
): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of Object.keys(ENVIRONMENT_VARIABLES)) {
    const value = name === 'PORT' ? String(shownPort) : name === 'HOST' ? undefined : env[name];
    if (value === undefined || value === '' || name === 'HOSTNAME') continue;
    shown[name] = SECRET_ENVIRONMENT_VARIABLES.has(name) ? SECRET_MASK : value;
  }
  if (shown.DATA_DIR === undefined && env.DATABASE_URL === undefined)
    shown.DATA_DIR = String(ENVIRONMENT_VARIABLES.DATA_DIR.default);
  return shown;
}
