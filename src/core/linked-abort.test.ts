import { describe, expect, it } from 'vitest';
import { linkAbort } from './linked-abort.js';

describe('linkAbort', () => {
  it('aborts with the reason of the first source that aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkAbort(a.signal, b.signal);
    expect(link.signal.aborted).toBe(false);
    b.abort('second');
    a.abort('first');
    expect(link.signal.reason).toBe('second');
  });

  it('starts aborted when a source already is, and aborts on demand', () => {
    const done = new AbortController();
    done.abort('early');
    expect(linkAbort(new AbortController().signal, done.signal).signal.reason).toBe('early');
    const link = linkAbort();
    link.abort('mine');
    expect(link.signal.reason).toBe('mine');
  });

  it('no longer follows its sources once disposed', () => {
    const source = new AbortController();
    const link = linkAbort(source.signal);
    link.dispose();
    source.abort('late');
    expect(link.signal.aborted).toBe(false);
  });
});
