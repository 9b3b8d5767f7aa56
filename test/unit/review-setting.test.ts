import * as assert from 'node:assert/strict';

import { DEFAULT_REVIEW, resolveReviewPolicy } from '../../src/core/trust/review-policy';
import { reviewPolicyOf } from '../../src/extension/trust/review-setting';
import { secretPolicyOf } from '../../src/extension/trust/secret-setting';

/** The mode of every writer kind the store ends up with for a setting's value. */
const modes = (value: unknown) => resolveReviewPolicy(reviewPolicyOf(value).policy);

describe('workspaceMemory.review.agentWrites', () => {
  it('"default" (and no value) keeps the store’s defaults: MCP clients, mining and consolidation wait', () => {
    assert.deepEqual(reviewPolicyOf('default'), { policy: undefined, ignored: [] });
    assert.deepEqual(reviewPolicyOf(undefined), { policy: undefined, ignored: [] });
    assert.deepEqual(modes('default'), DEFAULT_REVIEW);
    assert.equal(modes('default').copilot, 'immediate');
    assert.equal(modes('default').mcp, 'queue');
  });

  it('"queue" makes every agent wait, Copilot included, and never people, the CLI, imports or doc sync', () => {
    assert.deepEqual(modes('queue'), {
      user: 'immediate',
      copilot: 'queue',
      mcp: 'queue',
      cli: 'immediate',
      import: 'immediate',
      docsync: 'immediate',
      mining: 'queue',
      consolidation: 'queue',
      anchoring: 'immediate',
      // The team folder's changes were reviewed in git; the store follows them.
      team: 'immediate',
    });
  });

  it('"immediate" makes nothing wait', () => {
    assert.ok(Object.values(modes('immediate')).every((mode) => mode === 'immediate'));
  });

  it('an object sets agents one by one; the others keep their default', () => {
    const resolved = modes({ copilot: 'queue', mcp: 'immediate' });
    assert.equal(resolved.copilot, 'queue');
    assert.equal(resolved.mcp, 'immediate');
    assert.equal(resolved.mining, 'queue');
    assert.equal(resolved.user, 'immediate');
  });

  it('leaves out, and names, what the store would refuse, so a typo never keeps the store from opening', () => {
    assert.deepEqual(reviewPolicyOf({ copilot: 'queue', user: 'queue', mcp: 'later', robots: 'queue' }), {
      policy: { copilot: 'queue' },
      ignored: ['"user": "queue"', '"mcp": "later"', '"robots": "queue"'],
    });
    assert.deepEqual(reviewPolicyOf('sometimes'), { policy: undefined, ignored: ['"sometimes"'] });
    assert.deepEqual(reviewPolicyOf(['queue']), { policy: undefined, ignored: ['["queue"]'] });
    assert.deepEqual(reviewPolicyOf({ nobody: 'queue' }), { policy: undefined, ignored: ['"nobody": "queue"'] });
    for (const value of ['sometimes', { user: 'queue' }, 7]) assert.doesNotThrow(() => modes(value));
  });
});

describe('workspaceMemory.secrets', () => {
  it('maps each policy, and falls back to redact for anything else, naming it', () => {
    for (const policy of ['redact', 'block', 'allow'] as const) assert.deepEqual(secretPolicyOf(policy), { policy });
    assert.deepEqual(secretPolicyOf(undefined), { policy: 'redact' });
    assert.deepEqual(secretPolicyOf('off'), { policy: 'redact', ignored: '"off"' });
    assert.deepEqual(secretPolicyOf(false), { policy: 'redact', ignored: 'false' });
  });
});
