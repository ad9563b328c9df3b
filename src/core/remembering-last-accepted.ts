/**
 * `accepts`, remembering the last value it accepted so that value is accepted again without
 * asking: for checks of what a server hears the same on almost every request (its `Host`).
 * A value it refused is asked about every time.
 * @param accepts the check, which must answer the same for the same value
 * @example
 * const isKnownHost = rememberingLastAccepted((host) => URL.canParse(`http://${host}/`));
 */
export function rememberingLastAccepted(accepts: (value: string) => boolean): (value: string) => boolean {
  let lastAccepted: string | undefined;
  return function acceptsRemembering(value) {
    if (value === lastAccepted) return true;
    if (!accepts(value)) return false;
    lastAccepted = value;
    return true;
  };
}
