/**
 * The first line of an error's message, cut to 200 characters: what a health check's `output` shows.
 * @param error anything thrown
 */
export function errorFirstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split('\n', 1)[0] ?? '';
  return firstLine.length > 200 ? `${firstLine.slice(0, 199)}…` : firstLine;
}
