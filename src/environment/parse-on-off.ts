const TRUE_VALUES = new Set(['1', 'true', 'yes', 'on']);
const FALSE_VALUES = new Set(['', '0', 'false', 'no', 'off']);

/** Reads `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off` (any case; empty is false), or undefined for anything else. */
export function parseOnOff(raw: string): boolean | undefined {
  const value = raw.trim().toLowerCase();
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  return undefined;
}
