import { CliError } from '../cli-error.js';

/** Why `actor_id` is never an answer, in the words the CLI prints. */
export const ACTOR_ID_REFUSAL =
  'actor_id cannot be set: the platform assigns each actor its identity when you register it (see `actorkit publish`)';

/**
 * Parses repeated `--data KEY=VALUE` options into answers. Refuses a pair without `=`, a key
 * given twice, `actor_id` (identity comes from the platform) and `actor_name` (it is the first
 * argument of `new`). Every other key, `__proto__` and `constructor` included, is kept as given
 * for the template's questions to accept or refuse.
 * @param pairs the raw option values, in the order given.
 * @example
 * parseDataPairs(['domain=weather', 'replicas=2']); // { domain: 'weather', replicas: '2' }
 */
export function parseDataPairs(pairs: readonly string[]): Record<string, string> {
  // No prototype: `__proto__=x` must become a key (and be refused as unknown), not a prototype change.
  const answers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const pair of pairs) {
    const split = pair.indexOf('=');
    const key = split < 0 ? pair.trim() : pair.slice(0, split).trim();
    if (key === 'actor_id') throw new CliError('refused', 'actor_id_refused', ACTOR_ID_REFUSAL);
    if (split <= 0 || key === '')
      throw new CliError('refused', 'invalid_data', `--data needs KEY=VALUE, got '${pair}'`);
    if (key === 'actor_name') {
      throw new CliError(
        'refused',
        'invalid_data',
        'actor_name is the first argument of `actorkit new`, not a --data answer',
      );
    }
    if (Object.hasOwn(answers, key)) throw new CliError('refused', 'invalid_data', `--data ${key} is given twice`);
    answers[key] = pair.slice(split + 1);
  }
  return answers;
}
