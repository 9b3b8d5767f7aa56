import * as assert from 'node:assert/strict';

import { Features, requireFeature } from '../../src/extension/features';

describe('Features', () => {
  it('registers the features after one that throws, and reports that one with its error', () => {
    const reported: [string, string][] = [];
    const features = new Features((feature, error) => reported.push([feature, (error as Error).message]));
    const registered: string[] = [];
    const views = features.register('views', (): string => {
      throw new Error('tree view id unknown');
    });
    features.register('chat', () => registered.push('chat'));
    features.register('tools', () => registered.push('tools'));
    assert.equal(views, undefined);
    assert.deepEqual(registered, ['chat', 'tools']);
    assert.deepEqual(reported, [['views', 'tree view id unknown']]);
    assert.deepEqual(features.failed, ['views']);
  });

  it('fails a feature built on a failed one, saying which one it needed, and keeps going', () => {
    const reported: [string, string][] = [];
    const features = new Features((feature, error) => reported.push([feature, (error as Error).message]));
    const views = features.register('views', (): { refresh(): void } => {
      throw new Error('no views');
    });
    const commands = features.register('entity commands', () => requireFeature(views, 'views'));
    const status = features.register('status bar', () => 'shown');
    assert.equal(commands, undefined);
    assert.equal(status, 'shown');
    assert.deepEqual(reported[1], ['entity commands', 'it needs the views, which failed to register']);
  });

  it('returns what a feature that registered returns', () => {
    const features = new Features(() => assert.fail('nothing failed'));
    assert.equal(
      features.register('views', () => 42),
      42,
    );
    assert.deepEqual(features.failed, []);
  });
});
