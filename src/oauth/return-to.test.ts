import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ActorError } from '../core/actor-error.js';
import { parseReturnTo, returnToProblem } from './return-to.js';

const BASE = new URL('https://actor.example/prefix/oauth/callback');

describe('parseReturnTo', () => {
  it('accepts paths on this site, absolute or relative', () => {
    for (const value of [
      '/',
      '/panel/stats',
      '/panel/stats?tab=1#top',
      '../panel/stats',
      'done',
      '?connected=1',
      '/%2F%2Fstill-a-path',
      '/a:b',
    ]) {
      expect(parseReturnTo(value), value).toBe(value);
    }
    expect(parseReturnTo(null)).toBeUndefined();
    expect(parseReturnTo('')).toBeUndefined();
  });

  it('percent-encodes characters outside ASCII as UTF-8, leaving escapes already there', () => {
    expect(parseReturnTo('/caf\u00e9/\u20ac?q=\u{1f600}#\u0100')).toBe('/caf%C3%A9/%E2%82%AC?q=%F0%9F%98%80#%C4%80');
    expect(parseReturnTo('/a%20b/\u00ff')).toBe('/a%20b/%C3%BF');
    expect(() => parseReturnTo('/x\ud800')).toThrow(ActorError);
  });

  it('refuses everything that could leave the site, with a 400 and a pointer', () => {
    const refused = [
      '//evil.example',
      '///evil.example',
      '/\\evil.example',
      '\\/evil.example',
      'https://evil.example',
      'HTTP://evil.example',
      'javascript:alert(1)',
      'data:text/html,x',
      'mailto:a@b',
      '/ok\r\nX: y',
      '/a\u0000b',
      ' /x',
      '/x\u2028',
      '/x\u00a0y',
      `/${'a'.repeat(2048)}`,
    ];
    for (const value of refused) {
      const error = (() => {
        try {
          parseReturnTo(value);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error, JSON.stringify(value)).toBeInstanceOf(ActorError);
      expect(error).toMatchObject({ status: 400, code: 'invalid_return_to', errors: [{ pointer: '/return_to' }] });
    }
  });

  it('never accepts a value that a browser would resolve to another origin', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            '/',
            '\\',
            ':',
            '.',
            'a',
            'e',
            'v',
            'l',
            '@',
            '%',
            '2',
            'f',
            '?',
            '#',
            '\t',
            ' ',
            'h',
            't',
            'p',
            's',
          ),
        }),
        (value) => {
          if (returnToProblem(value) !== undefined || value === '') return;
          expect(new URL(value, BASE).origin).toBe(BASE.origin);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
