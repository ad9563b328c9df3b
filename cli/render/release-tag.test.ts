import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { highestReleaseTag } from './release-tag.js';

describe('highestReleaseTag', () => {
  it('orders by semantic version, not by text: v0.10.0 beats v0.9.0', () => {
    expect(highestReleaseTag(['v0.2.0', 'v0.9.0', 'v0.10.0'])).toBe('v0.10.0');
  });

  it('skips prereleases, even when they are the highest', () => {
    expect(highestReleaseTag(['v0.10.0', 'v1.0.0-rc.1', 'v2.0.0-beta'])).toBe('v0.10.0');
  });

  it('skips tags that are not versions and accepts tags without the v', () => {
    expect(highestReleaseTag(['latest', 'release-3', 'v1', 'v1.2', '1.4.0', 'v1.3.9', '=9.9.9', ''])).toBe('1.4.0');
  });

  it('returns undefined when there is no release tag', () => {
    expect(highestReleaseTag([])).toBeUndefined();
    expect(highestReleaseTag(['v1.0.0-rc.1', 'main'])).toBeUndefined();
  });

  it('always picks a tag no lower than any other release tag (property)', () => {
    const version = fc.tuple(fc.nat(30), fc.nat(30), fc.nat(30)).map(([a, b, c]) => `v${a}.${b}.${c}`);
    fc.assert(
      fc.property(fc.array(version, { minLength: 1 }), (tags) => {
        const best = highestReleaseTag(tags) as string;
        const parts = (tag: string) => tag.slice(1).split('.').map(Number) as [number, number, number];
        const [a, b, c] = parts(best);
        return tags.every((tag) => {
          const [x, y, z] = parts(tag);
          return x < a || (x === a && (y < b || (y === b && z <= c)));
        });
      }),
    );
  });
});
