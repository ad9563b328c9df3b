import { withoutCredentials } from './without-credentials.js';

/**
 * What is wrong with `url` as the base URL of a server the actor calls, or undefined when
 * nothing is: it must be an absolute http(s) URL that a Fetch `Request` accepts, so without a
 * user name or password (`fetch` refuses such a URL on every call). The text never shows them.
 * @param url the URL as configured
 * @example
 * httpUrlProblem('http://['); // 'must be an http(s) URL, got "http://["'
 */
export function httpUrlProblem(url: string): string | undefined {
  const shown = JSON.stringify(withoutCredentials(url));
  if (!(/^https?:\/\//i.test(url) && URL.canParse(url))) return `must be an http(s) URL, got ${shown}`;
  const { username, password } = new URL(url);
  if (username !== '' || password !== '')
    return `must not hold a user name or password (user:password@), got ${shown}; give the server's key on its own`;
  return undefined;
}
