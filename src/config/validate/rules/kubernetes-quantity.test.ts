import { describe, expect, it } from 'vitest';
import { parseKubernetesQuantity } from './kubernetes-quantity.js';

describe('parseKubernetesQuantity', () => {
  it.each([
    ['100m', 0.1],
    ['0.5', 0.5],
    ['2', 2],
    ['128Mi', 128 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1G', 1e9],
    ['500k', 5e5],
  ])('%s is %d', (text, value) => {
    expect(parseKubernetesQuantity(text)).toBeCloseTo(value);
  });

  it.each([['lots'], [''], ['1 Gi'], ['-1'], ['1GB'], [12], [null]])('%s is not a quantity', (text) => {
    expect(parseKubernetesQuantity(text)).toBeUndefined();
  });
});
