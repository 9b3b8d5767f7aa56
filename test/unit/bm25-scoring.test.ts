import * as assert from 'node:assert/strict';

import { bm25, countTerms, idf, slotsOf, termGroups } from '../../src/core/search/bm25';
import { textSimilarity } from '../../src/core/search/dedup';
import { documentFor, documentLength, type SearchDocument } from '../../src/core/search/documents';
import type { VersionBody } from '../../src/core/store/entity-store';

const weights = { content: 1, tags: 3, meta: 2 };
const params = { k1: 1.2 };

/** The BM25 score of `doc` for one query term that `df` of `docs` documents hold. */
function scoreOf(doc: SearchDocument, term: string, averageLength: number, verboseness = 1): number {
  const groups = termGroups([[term]], new Map([[term, 2]]), 10);
  return bm25(countTerms(doc, slotsOf(groups), groups.length, weights), groups, { averageLength, verboseness }, params);
}

describe('BM25 scoring', () => {
  it("computes Lucene's idf, log(1 + (N - n + 0.5) / (n + 0.5))", () => {
    assert.equal(idf(10, 2), Math.log(1 + 8.5 / 2.5));
    assert.equal(idf(100, 0), Math.log(1 + 100.5 / 0.5));
    assert.ok(idf(10, 10) > 0, 'a term in every document still counts a little');
  });

  it('scores one hit in the content of an average-length document as the idf', () => {
    const doc: SearchDocument = { content: ['alpha', 'beta'], tags: [], meta: [] };
    // tf 1, length ratio 1: idf * 1 * (k1 + 1) / (1 + k1).
    assert.ok(Math.abs(scoreOf(doc, 'alpha', 2) - idf(10, 2)) < 1e-12);
    assert.equal(scoreOf(doc, 'gamma', 2), 0);
  });

  it('counts a term in the tags and the meta by their column weights', () => {
    const inTags: SearchDocument = { content: ['x'], tags: ['alpha'], meta: [] };
    const inMeta: SearchDocument = { content: ['x'], tags: [], meta: ['alpha'] };
    const norm = params.k1;
    const expected = (tf: number) => (idf(10, 2) * tf * (params.k1 + 1)) / (tf + norm);
    assert.ok(Math.abs(scoreOf(inTags, 'alpha', 2) - expected(3)) < 1e-12);
    assert.ok(Math.abs(scoreOf(inMeta, 'alpha', 2) - expected(2)) < 1e-12);
  });

  it('scores a longer document lower for the same hit where documents repeat themselves, and treats an empty index as average', () => {
    const short: SearchDocument = { content: ['alpha'], tags: [], meta: [] };
    const long: SearchDocument = { content: ['alpha', 'b', 'c', 'd'], tags: [], meta: [] };
    assert.ok(scoreOf(short, 'alpha', 2, 2) > scoreOf(long, 'alpha', 2, 2));
    assert.ok(Math.abs(scoreOf(long, 'alpha', 0) - idf(10, 2)) < 1e-12);
  });

  it('counts every column in a document length', () => {
    assert.equal(documentLength({ content: ['a', 'b', 'c'], tags: ['t'], meta: ['m', 'n'] }), 6);
  });
});

describe('search documents', () => {
  it('takes the text items of array fields, each on its own line, and leaves the rest out', () => {
    const body = {
      type: 'knowledge',
      agentId: 'a',
      content: 'body',
      headingPath: ['Install', 42, 'Linux'],
      questions: ['how to install'],
      tags: ['setup'],
    } as unknown as VersionBody;
    const doc = documentFor(body);
    assert.ok(doc);
    assert.ok(doc.meta.includes('instal') || doc.meta.some((term) => term.startsWith('install')), doc.meta.join());
    assert.ok(
      doc.meta.some((term) => term.startsWith('linux')),
      doc.meta.join(),
    );
    assert.ok(!doc.meta.includes('42'), doc.meta.join());
    // Items are separate lines, not glued together.
    assert.ok(!doc.meta.some((term) => term.includes('linux') && term.includes('install')), doc.meta.join());
  });
});

describe('text similarity', () => {
  it('is 1 for the same words, 0 for none in common, and in between otherwise', () => {
    assert.ok(Math.abs(textSimilarity('deploy the server', 'deploy the server') - 1) < 1e-12);
    assert.equal(textSimilarity('deploy server', 'banana smoothie'), 0);
    // A text without terms is like nothing at all, not NaN.
    assert.equal(textSimilarity('', 'deploy server'), 0);
    const some = textSimilarity('deploy server now', 'deploy server later');
    assert.ok(some > 0 && some < 1, String(some));
  });

  it('weighs repeated words by their count (cosine of the term counts)', () => {
    // Counts {deploy: 2, server: 1} against {deploy: 1, server: 2}: 4 / 5.
    assert.ok(Math.abs(textSimilarity('deploy deploy server', 'deploy server server') - 0.8) < 1e-12);
  });
});
