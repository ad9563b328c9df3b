import { describe, expect, it } from 'vitest';
import { ruleHDeployment } from './rule-h-deployment.js';

/** The pointers rule H finds in a deployment whose only resources are these. */
function resourceProblems(requests: Record<string, unknown>, limits: Record<string, unknown>): string[] {
  const config = { deployment: { resources: { requests, limits } } };
  return ruleHDeployment.check(config).map((problem) => problem.pointer);
}

describe('rule H: requests do not exceed limits, read as Kubernetes quantities', () => {
  it.each([
    ['100m', 0.1],
    ['0.5', 0.5],
    ['2', 2],
    ['128Mi', 128 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1G', 1e9],
    ['500k', 5e5],
  ])('%s is %d', (text, value) => {
    expect(resourceProblems({ cpu: text }, { cpu: String(value - 0.001) })).toEqual([
      '/deployment/resources/requests/cpu',
    ]);
    expect(resourceProblems({ cpu: text }, { cpu: String(value + 0.001) })).toEqual([]);
    expect(resourceProblems({ memory: String(value + 0.001) }, { memory: text })).toEqual([
      '/deployment/resources/requests/memory',
    ]);
  });

  it.each([['lots'], [''], ['1 Gi'], ['-1'], ['1GB'], [12], [null]])('%s is not a quantity', (text) => {
    expect(resourceProblems({ cpu: '999E' }, { cpu: text })).toEqual([]);
    expect(resourceProblems({ cpu: text }, { cpu: '0' })).toEqual([]);
  });
});
