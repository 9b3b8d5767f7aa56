import * as assert from 'node:assert/strict';

import { syncProgressText } from '../../src/server/cli/rag-commands';

describe('cli: document sync progress', () => {
  it('names the phase and counts the whole job', () => {
    assert.equal(syncProgressText({ phase: 'reading', done: 1407, total: 1527 }), '1407 of 1527: reading files');
    assert.equal(
      syncProgressText({ phase: 'writing', done: 1500, total: 1527, path: 'a.md' }),
      '1500 of 1527: writing chunks',
    );
  });
});
