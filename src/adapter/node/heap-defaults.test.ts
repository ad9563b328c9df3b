import { describe, expect, it } from 'vitest';
import { NODE_HEAP_DEFAULTS, nodeHeapSettings } from './heap-defaults.js';

describe('the Node heap defaults', () => {
  it('are the defaults, except a setting the process was started with a flag for, and none when NODE_HEAP_TUNING is off', () => {
    expect(nodeHeapSettings({}, [])).toEqual({
      heapGrowingPercent: NODE_HEAP_DEFAULTS.heapGrowingPercent,
      maxSemiSpaceMiB: NODE_HEAP_DEFAULTS.maxSemiSpaceMiB,
    });
    expect(nodeHeapSettings({}, ['--max-semi-space-size=16'])).toEqual({
      heapGrowingPercent: NODE_HEAP_DEFAULTS.heapGrowingPercent,
      maxSemiSpaceMiB: undefined,
    });
    expect(nodeHeapSettings({}, ['--heap_growing_percent=50', '--enable-source-maps'])).toEqual({
      heapGrowingPercent: undefined,
      maxSemiSpaceMiB: NODE_HEAP_DEFAULTS.maxSemiSpaceMiB,
    });
    expect(nodeHeapSettings({ NODE_HEAP_TUNING: 'false' }, [])).toEqual({
      heapGrowingPercent: undefined,
      maxSemiSpaceMiB: undefined,
    });
    expect(nodeHeapSettings({ NODE_HEAP_TUNING: 'true' }, [])).toEqual(nodeHeapSettings({}, []));
    // As the typed environment reads a flag: blank is off; a value that is no flag refuses the start there.
    expect(nodeHeapSettings({ NODE_HEAP_TUNING: '' }, [])).toEqual(nodeHeapSettings({ NODE_HEAP_TUNING: 'off' }, []));
    expect(nodeHeapSettings({ NODE_HEAP_TUNING: 'maybe' }, [])).toEqual(nodeHeapSettings({}, []));
  });
});
