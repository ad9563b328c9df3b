import { CliError } from '../cli-error.js';

/** The environment variable holding the platform's base URL. */
export const PLATFORM_URL_ENV = 'PLATFORM_URL';

/** The platform URL used when `PLATFORM_URL` is not set: a platform running locally. */
export const DEFAULT_PLATFORM_URL = 'http://localhost:3000';

/**
 * Reads the platform's base URL from `PLATFORM_URL` (default {@link DEFAULT_PLATFORM_URL}),
 * without a trailing slash; anything but an http(s) URL is refused with code `invalid_platform_url`.
 * @param env the environment.
 */
export function platformUrl(env: Readonly<Record<string, string | undefined>>): string {
  const raw = env[PLATFORM_URL_ENV]?.trim() || DEFAULT_PLATFORM_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError('refused', 'invalid_platform_url', `${PLATFORM_URL_ENV} '${raw}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError('refused', 'invalid_platform_url', `${PLATFORM_URL_ENV} '${raw}' must be an http or https URL`);
  }
  return raw.replace(/\/+$/, '');
}

/** The creator hub's registration page, below the platform URL (the local platform answers it too). */
export const REGISTER_ACTOR_PATH = '/home/creator/register-actor';

/**
 * The creator-hub steps printed after a push, starting at `{PLATFORM_URL}/home/creator/register-actor`.
 * @param baseUrl the platform URL, from `platformUrl`.
 * @param image the pushed `<repo>:<tag>`.
 */
export function registrationSteps(baseUrl: string, image: string): string[] {
  return [
    `Open ${baseUrl}${REGISTER_ACTOR_PATH}`,
    `Enter the image ${image}`,
    'Review what the platform reads from the image at /api/actor/platform-config (your src/platform/config.json): card, settings, sections, deployment',
    'Submit: the platform assigns the actor its actor_id and deploys it',
  ];
}
