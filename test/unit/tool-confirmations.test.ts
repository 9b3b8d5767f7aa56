import * as assert from 'node:assert/strict';

import { Confirmations } from '../../src/extension/tools/confirmations';

describe('tool confirmations', () => {
  it('marks a call prepared with a confirmation as confirmed once, by tool and input', () => {
    const confirmations = new Confirmations();
    confirmations.asked('memory_update', { id: 'memory-1', content: 'new' });
    assert.equal(confirmations.take('memory_update', { id: 'memory-1', content: 'other' }), false);
    assert.equal(confirmations.take('memory_forget', { id: 'memory-1', content: 'new' }), false);
    assert.equal(confirmations.take('memory_update', { id: 'memory-1', content: 'new' }), true);
    assert.equal(confirmations.take('memory_update', { id: 'memory-1', content: 'new' }), false, 'used up');
  });

  it('counts the same call prepared twice as two confirmations', () => {
    const confirmations = new Confirmations();
    confirmations.asked('memory_forget', { id: 'memory-1' });
    confirmations.asked('memory_forget', { id: 'memory-1' });
    assert.equal(confirmations.take('memory_forget', { id: 'memory-1' }), true);
    assert.equal(confirmations.take('memory_forget', { id: 'memory-1' }), true);
    assert.equal(confirmations.take('memory_forget', { id: 'memory-1' }), false);
  });

  it('forgets a confirmation after half an hour, and keeps at most 500 unused ones', () => {
    let now = 0;
    const confirmations = new Confirmations(() => now);
    confirmations.asked('memory_forget', { id: 'memory-old' });
    now += 31 * 60_000;
    assert.equal(confirmations.take('memory_forget', { id: 'memory-old' }), false);
    for (let i = 0; i < 600; i++) confirmations.asked('memory_forget', { id: `memory-${i}` });
    assert.equal(confirmations.take('memory_forget', { id: 'memory-0' }), false, 'the oldest went first');
    assert.equal(confirmations.take('memory_forget', { id: 'memory-599' }), true);
  });
});
