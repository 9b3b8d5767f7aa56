import * as assert from 'node:assert/strict';

import {
  bm25,
  type CollectionStats,
  countTerms,
  idf,
  meanVerboseness,
  slotsOf,
  termGroups,
} from '../../src/core/search/bm25';
import type { SearchDocument } from '../../src/core/search/documents';
import { openTemp } from './helpers';

const weights = { content: 1, tags: 3, meta: 2 };
const params = { k1: 1.2 };

const doc = (content: string[], tags: string[] = [], meta: string[] = []): SearchDocument => ({ content, tags, meta });

/** The BM25 score of `d` for the one query term `alpha`, which 2 of 10 documents hold. */
function scoreOf(d: SearchDocument, stats: CollectionStats): number {
  const groups = termGroups([['alpha']], new Map([['alpha', 2]]), 10);
  return bm25(countTerms(d, slotsOf(groups), groups.length, weights), groups, stats, params);
}

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} vs ${expected}`);

describe('retrieval: BM25 length normalization by verboseness', () => {
  it('counts the query terms by column weight, the length and the distinct terms in one pass', () => {
    const groups = termGroups([['alpha'], ['gamma']], new Map(), 10);
    const counts = countTerms(doc(['alpha', 'beta', 'alpha'], ['alpha'], ['gamma']), slotsOf(groups), 2, weights);
    assert.deepEqual(counts.tf, [1 + 1 + 3, 2]);
    assert.equal(counts.length, 5);
    close(counts.verboseness, 5 / 3);
    assert.deepEqual(countTerms(doc([]), slotsOf(groups), 2, weights), { tf: [0, 0], length: 0, verboseness: 1 });
  });

  it('takes the mean verboseness of the documents ranked, 1 when there are none', () => {
    const counts = [doc(['a', 'b']), doc(['a', 'a', 'a'])].map((d) => countTerms(d, new Map(), 0, weights));
    close(meanVerboseness(counts), (1 + 3) / 2);
    assert.equal(meanVerboseness([]), 1);
  });

  it('scores one hit in an average document (average length and verboseness) as the idf', () => {
    close(scoreOf(doc(['alpha', 'beta']), { averageLength: 2, verboseness: 1 }), idf(10, 2));
    // Six terms, four distinct: verboseness 1.5, as the collection's.
    const verbose = doc(['alpha', 'beta', 'beta', 'gamma', 'gamma', 'delta']);
    close(scoreOf(verbose, { averageLength: 6, verboseness: 1.5 }), idf(10, 2));
    // An empty index counts as average.
    close(scoreOf(doc(['alpha', 'beta']), { averageLength: 0, verboseness: 1 }), idf(10, 2));
  });

  it('does not score a longer document lower for the same hit where no document repeats itself', () => {
    const stats = { averageLength: 2, verboseness: 1 };
    close(scoreOf(doc(['alpha', 'b', 'c', 'd']), stats), scoreOf(doc(['alpha']), stats));
  });

  it('scores a longer document lower where documents repeat themselves', () => {
    const stats = { averageLength: 2, verboseness: 2 };
    assert.ok(scoreOf(doc(['alpha']), stats) > scoreOf(doc(['alpha', 'b', 'c', 'd']), stats));
  });

  it('scores a document that repeats itself below one of the same length that does not', () => {
    const stats = { averageLength: 4, verboseness: 1.5 };
    assert.ok(scoreOf(doc(['alpha', 'x', 'y', 'z']), stats) > scoreOf(doc(['alpha', 'x', 'x', 'x']), stats));
  });

  it('does not rank a memory that says more below a one-liner with the same word', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      await memory.memories.save('a', undefined, { content: 'Camping sounds fun' });
      await memory.memories.save('a', undefined, {
        content: 'We went camping by the lake with the kids last weekend, roasted marshmallows and hiked',
      });
      const results = await memory.memories.search('a', undefined, 'camping', 10, { explain: true });
      assert.equal(results.length, 2);
      // Classic BM25 (b = 0.75) put the one-liner first, by length alone.
      close(results[0]!.explain!.bm25, results[1]!.explain!.bm25);
    } finally {
      await cleanup();
    }
  });
});
