const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * Whether `value` is a URL whose host is this machine's loopback: `localhost`, an address of
 * 127.0.0.0/8 or `[::1]`. Anything else, and text that is not a URL, is not.
 * @param value the URL
 */
export function isLoopbackUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const host = new URL(value).hostname;
  return host === 'localhost' || host === '[::1]' || IPV4_LOOPBACK.test(host);
}
