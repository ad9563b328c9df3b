/**
 * A URL fit for a log line: user name and password removed; text that is not a URL comes back
 * with every `user:password@` it holds removed.
 */
export function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return url.replace(/\/\/[^/@\s]*@/g, '//');
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}
