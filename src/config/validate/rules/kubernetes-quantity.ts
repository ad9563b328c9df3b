const SUFFIX_FACTORS: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/**
 * Parses a Kubernetes resource quantity (`100m`, `0.5`, `128Mi`, `1G`) to a plain number, or
 * `undefined` when the text is not a quantity.
 * @param quantity the quantity text
 */
export function parseKubernetesQuantity(quantity: unknown): number | undefined {
  if (typeof quantity !== 'string') return undefined;
  const match = /^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(quantity);
  if (match === null) return undefined;
  return Number(match[1]) * (SUFFIX_FACTORS[match[2] ?? ''] ?? Number.NaN);
}
