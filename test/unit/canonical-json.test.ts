import * as assert from 'node:assert/strict';

import { canonicalJson, sha256 } from '../../src/core/store/hashing';

describe('canonical JSON', () => {
  it('sorts the keys of objects inside an array that also holds plain values', () => {
    // An array of only plain values is used as it is; one object among them is enough to sort it.
    assert.equal(canonicalJson(['x', 1, { b: 1, a: { d: 2, c: 3 } }, null]), '["x",1,{"a":{"c":3,"d":2},"b":1},null]');
    assert.equal(canonicalJson([{ b: 1, a: 2 }, 'y']), canonicalJson([{ a: 2, b: 1 }, 'y']));
  });

  it('gives equal values written in another key order the same hash', () => {
    const one = { tags: ['t'], meta: [1, { z: true, y: [{ q: 1, p: 2 }] }], content: 'c' };
    const two = { content: 'c', meta: [1, { y: [{ p: 2, q: 1 }], z: true }], tags: ['t'] };
    assert.equal(sha256(canonicalJson(one)), sha256(canonicalJson(two)));
    assert.notEqual(sha256(canonicalJson(one)), sha256(canonicalJson({ ...two, content: 'd' })));
  });

  it('drops undefined members at every depth and keeps null ones', () => {
    assert.equal(canonicalJson({ b: undefined, a: null, c: [{ e: undefined, d: 1 }] }), '{"a":null,"c":[{"d":1}]}');
  });
});
