import * as assert from 'node:assert/strict';

import { MemoryError } from '../../src/core/errors';
import { hostAllowed, isLoopback, planBind } from '../../src/server/http/bind';

describe('http bind', () => {
  it('listens on 127.0.0.1 unless told otherwise', () => {
    assert.deepEqual(planBind(undefined, false), { host: '127.0.0.1', loopback: true, wildcard: false });
  });

  it('tells loopback addresses from the others', () => {
    for (const host of [
      '127.0.0.1',
      '127.1.2.3',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      'localhost',
      'LOCALHOST',
    ]) {
      assert.equal(isLoopback(host), true, host);
    }
    for (const host of [
      '0.0.0.0',
      '::',
      '192.168.1.5',
      '10.0.0.1',
      '128.0.0.1',
      'example.com',
      'localhost.example.com',
      '::2',
    ]) {
      assert.equal(isLoopback(host), false, host);
    }
  });

  it('takes a loopback --host without further ado', () => {
    assert.deepEqual(planBind('::1', false), { host: '::1', loopback: true, wildcard: false });
    assert.deepEqual(planBind('[::1]', false), { host: '::1', loopback: true, wildcard: false });
    assert.equal(planBind('localhost', false).loopback, true);
  });

  it('refuses an address other machines can reach without --allow-remote', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'my-laptop.local']) {
      assert.throws(
        () => planBind(host, false),
        (error: unknown) =>
          error instanceof MemoryError &&
          error.code === 'INVALID_INPUT' &&
          error.message.includes(`Refusing to listen on ${host}`) &&
          error.message.includes('--allow-remote'),
        host,
      );
    }
  });

  it('takes one with --allow-remote, knowing a wildcard from a single address', () => {
    assert.deepEqual(planBind('0.0.0.0', true), { host: '0.0.0.0', loopback: false, wildcard: true });
    assert.deepEqual(planBind('::', true), { host: '::', loopback: false, wildcard: true });
    assert.deepEqual(planBind('192.168.1.5', true), { host: '192.168.1.5', loopback: false, wildcard: false });
  });

  it('refuses an empty --host', () => {
    assert.throws(() => planBind('  ', true), MemoryError);
  });

  describe('the Host header', () => {
    const loopback = planBind(undefined, false);

    it('on loopback, names a loopback name and the server’s port', () => {
      for (const host of ['127.0.0.1:7411', 'localhost:7411', '[::1]:7411', 'Localhost:7411']) {
        assert.equal(hostAllowed(host, loopback, 7411), true, host);
      }
      for (const host of [
        undefined,
        '',
        'evil.example:7411',
        '127.0.0.1:7412',
        '127.0.0.1',
        'localhost',
        '127.0.0.1:7411/x',
        'user@127.0.0.1:7411',
        '127.1:7411',
        '2130706433:7411',
      ]) {
        assert.equal(hostAllowed(host, loopback, 7411), false, String(host));
      }
    });

    it('leaves the port out on port 80, as clients do', () => {
      assert.equal(hostAllowed('localhost', loopback, 80), true);
      assert.equal(hostAllowed('localhost:8080', loopback, 80), false);
    });

    it('on one address, names it or a loopback name', () => {
      const lan = planBind('192.168.1.5', true);
      assert.equal(hostAllowed('192.168.1.5:7411', lan, 7411), true);
      assert.equal(hostAllowed('localhost:7411', lan, 7411), true);
      assert.equal(hostAllowed('evil.example:7411', lan, 7411), false);
    });

    it('on a wildcard, may name the machine anything: the token is the guard', () => {
      const everywhere = planBind('0.0.0.0', true);
      assert.equal(hostAllowed('my-laptop.local:7411', everywhere, 7411), true);
      assert.equal(hostAllowed('my-laptop.local:7412', everywhere, 7411), false);
    });
  });
});
