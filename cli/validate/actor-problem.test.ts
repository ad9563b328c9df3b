import { describe, expect, it } from 'vitest';
import { problemBullet } from './actor-problem.js';

describe('problemBullet', () => {
  it('formats rule with its name, pointer (the root as /), message and hint', () => {
    expect(problemBullet({ rule: 'A', pointer: '/sections/0', message: 'bad' })).toBe(
      '- [A sections] /sections/0: bad',
    );
    expect(problemBullet({ rule: 'C', pointer: '/settings/properties/x/x-platform-order', message: 'taken' })).toBe(
      '- [C order] /settings/properties/x/x-platform-order: taken',
    );
    expect(problemBullet({ rule: 'schema default', pointer: '/settings/properties/x/default', message: 'bad' })).toBe(
      '- [schema default] /settings/properties/x/default: bad',
    );
    expect(problemBullet({ rule: 'toString', pointer: '', message: 'odd' })).toBe('- [toString] /: odd');
    expect(problemBullet({ rule: 'emitter', pointer: '', message: 'failed', hint: 'run npm install' })).toBe(
      '- [emitter] /: failed (hint: run npm install)',
    );
  });
});
