import * as assert from 'node:assert/strict';

import { DEFAULT_SYNONYMS, QueryExpander, type SynonymMap } from '../../src/core/search/synonyms';
import { tokenize } from '../../src/core/search/tokenizer';
import { openTemp } from './helpers';

const TERM = /^[\p{L}\p{N}_]+$/u;

/** The group of a query's first word: its first term and all its equivalents. */
function group(expander: QueryExpander, query: string): string[] {
  return expander.expand(query)[0] ?? [];
}

/** Every term a query expands to. */
function allTerms(expander: QueryExpander, query: string): string[] {
  return expander.expand(query).flat();
}

function includesAll(haystack: readonly string[], needles: readonly string[], message: string): void {
  for (const needle of needles)
    assert.ok(haystack.includes(needle), `${message}: ${needle} not in ${haystack.join(', ')}`);
}

describe('query expansion', () => {
  const expander = new QueryExpander();

  describe('default developer vocabulary', () => {
    const pairs: [string, string][] = [
      ['ts', 'typescript'],
      ['js', 'javascript'],
      ['k8s', 'kubernetes'],
      ['db', 'database'],
      ['repo', 'repository'],
      ['config', 'configuration'],
      ['cfg', 'configuration'],
      ['env', 'environment'],
      ['auth', 'authentication'],
      ['auth', 'authorization'],
      ['dep', 'dependency'],
      ['deps', 'dependencies'],
      ['pr', 'pull request'],
      ['ci', 'continuous integration'],
      ['cd', 'continuous deployment'],
      ['impl', 'implementation'],
      ['dir', 'directory'],
      ['msg', 'message'],
      ['err', 'error'],
      ['fn', 'function'],
      ['func', 'function'],
      ['param', 'parameter'],
      ['arg', 'argument'],
      ['py', 'python'],
      ['md', 'markdown'],
      ['ui', 'user interface'],
      ['perf', 'performance'],
      ['doc', 'documentation'],
      ['docs', 'documentation'],
      ['e2e', 'end to end'],
      ['os', 'operating system'],
      ['vm', 'virtual machine'],
      ['gh', 'github'],
      ['infra', 'infrastructure'],
      ['prod', 'production'],
      ['dev', 'development'],
      ['init', 'initialize'],
      ['init', 'initialization'],
      ['async', 'asynchronous'],
      ['regex', 'regular expression'],
      ['llm', 'large language model'],
    ];
    for (const [short, long] of pairs) {
      it(`expands ${short} to ${long} and back`, () => {
        const ownShort = [...new Set(tokenize(short))];
        const ownLong = [...new Set(tokenize(long))];
        const forward = expander.expand(short);
        assert.equal(forward[0]?.[0], ownShort[0]);
        includesAll(forward.flat(), ownLong, short);
        const backward = expander.expand(long);
        assert.equal(backward[0]?.[0], ownLong[0]);
        // The equivalents join the group of the phrase's first word.
        includesAll(backward[0] ?? [], ownShort, long);
        includesAll(backward.flat(), ownLong, long);
      });
    }

    it('has a curated list of reasonable size', () => {
      const size = Object.keys(DEFAULT_SYNONYMS).length;
      assert.ok(size >= 40 && size <= 100, `${size} entries`);
    });

    it('does not link equivalents of the same word to each other', () => {
      assert.ok(!group(expander, 'authentication').includes('author'));
    });
  });

  describe('groups', () => {
    it("groups a word's first term with its equivalents; its other terms stand alone, in order", () => {
      assert.deepEqual(expander.expand('fix getUserName db'), [
        ...tokenize('fix').map((term) => [term]),
        ...tokenize('getUserName').map((term) => [term]),
        ['db', ...tokenize('database')],
      ]);
    });

    it('lines up with the terms tokenize gives the long forms', () => {
      const groups = expander.expand('db config');
      const expected = tokenize('database configuration');
      assert.equal(groups.length, expected.length);
      expected.forEach((term, index) => assert.ok(groups[index]?.includes(term), term));
    });

    it('has no duplicates in a group', () => {
      for (const query of ['e2e', 'init', 'cfg config configuration', 'end to end', 'TypeScript ts']) {
        for (const terms of expander.expand(query)) assert.equal(new Set(terms).size, terms.length, query);
      }
    });

    it('matches case-insensitively and across inflections', () => {
      includesAll(group(expander, 'TypeScript'), ['ts'], 'TypeScript');
      includesAll(group(expander, 'DB'), tokenize('database'), 'DB');
      includesAll(group(expander, 'Databases'), ['db'], 'Databases');
      includesAll(group(expander, 'PRs'), tokenize('pull request'), 'PRs');
      includesAll(group(expander, 'repos'), tokenize('repository'), 'repos');
    });

    it('recognizes a multi-word phrase as one term, by longest match', () => {
      const [pullRequests, ...rest] = expander.expand('pull requests merged');
      includesAll(pullRequests ?? [], ['pull', 'pr'], 'pull requests');
      assert.deepEqual(
        rest,
        [...tokenize('requests'), ...tokenize('merged')].map((term) => [term]),
      );
      includesAll(allTerms(expander, 'env var'), tokenize('environment variable'), 'env var');
      includesAll(group(expander, 'command line interface'), ['cli'], 'command line interface');
    });

    it('drops stopwords from queries and from equivalents', () => {
      assert.deepEqual(expander.expand('the db'), expander.expand('db'));
      const e2e = group(expander, 'e2e');
      assert.ok(e2e.includes('end') && !e2e.includes('to'));
      assert.ok(group(expander, 'end to end').includes('e2e'));
    });

    it('keeps the stopwords of a query that has nothing else', () => {
      assert.deepEqual(expander.expand('the'), [['the']]);
      assert.deepEqual(expander.expand('to be'), [['to'], ['be']]);
    });

    it('passes other words through unchanged', () => {
      assert.deepEqual(expander.expand('zebra crossing'), [tokenize('zebra'), tokenize('crossing')]);
    });
  });

  describe('spellings of one thing', () => {
    it('a search for "sign in" finds a memory that says login, log in, signin, sign-in or logon', async () => {
      const { memory, cleanup } = await openTemp();
      try {
        const spellings = ['login', 'log in', 'signin', 'sign-in', 'logon'];
        const saved = await memory.memories.saveMany(
          spellings.map((spelling) => ({
            agentId: 'a',
            input: { content: `Users ${spelling} with the company's GitHub account` },
          })),
        );
        await memory.memories.save('a', undefined, { content: 'Deploys are announced in the team channel' });
        const found = new Set((await memory.memories.search('a', undefined, 'sign in', 10)).map((r) => r.entity.id));
        spellings.forEach((spelling, index) => assert.ok(found.has(saved[index]![0].id), spelling));
        assert.equal(found.size, spellings.length);
      } finally {
        await cleanup();
      }
    });

    it('links every spelling to every other, sign out to log off too', () => {
      for (const query of ['sign in', 'log in', 'logon', 'signin', 'sign-in', 'login']) {
        const terms = group(expander, query);
        for (const other of ['login', 'logon', 'signin', 'sign_in', 'log_in']) {
          if (!tokenize(query).includes(other))
            assert.ok(terms.includes(other), `${query}: ${other} in ${terms.join(', ')}`);
        }
      }
      includesAll(group(expander, 'sign out'), ['logout', 'logoff', 'signout', 'sign_out'], 'sign out');
      includesAll(group(expander, 'logoff'), ['logout', 'signout'], 'logoff');
    });

    it('a one-word spelling does not look for the loose words of a phrase ("log" is any log file)', () => {
      for (const query of ['login', 'signin', 'logout']) {
        const terms = group(expander, query);
        assert.ok(!terms.includes('log') && !terms.includes('sign'), `${query}: ${terms.join(', ')}`);
      }
      // A query with the phrase looks for the other phrases' words: "sign in" finds "log in".
      includesAll(group(expander, 'sign in'), ['log'], 'sign in');
      assert.deepEqual(expander.expand('log rotation'), [tokenize('log'), tokenize('rotation')]);
    });
  });

  describe('extra synonyms', () => {
    it('adds entries that work both ways, multi-word ones too', () => {
      const extra: SynonymMap = { rdbms: ['relational database'], 'Feature Flag': ['toggle'] };
      const custom = new QueryExpander(extra);
      includesAll(group(custom, 'RDBMS'), tokenize('relational database'), 'rdbms');
      includesAll(group(custom, 'relational databases'), ['rdbm'], 'relational databases');
      includesAll(group(custom, 'feature flags'), tokenize('toggle'), 'feature flags');
      includesAll(allTerms(custom, 'toggle'), tokenize('feature flag'), 'toggle');
      includesAll(group(custom, 'db'), tokenize('database'), 'defaults kept');
    });

    it('replaces a default entry with the same normalized key', () => {
      const custom = new QueryExpander({ PR: ['problem report'] });
      const pr = group(custom, 'pr');
      includesAll(pr, tokenize('problem report'), 'pr');
      assert.ok(!pr.includes('pull'));
      assert.equal(custom.expand('pull request').length, 2);
    });

    it('removes a default entry given an empty list', () => {
      assert.deepEqual(new QueryExpander({ ts: [] }).expand('ts'), [tokenize('ts')]);
    });

    it('splits identifiers in equivalents as the tokenizer does', () => {
      const custom = new QueryExpander({ login: ['signInUser'] });
      includesAll(group(custom, 'login'), tokenize('signInUser'), 'login');
      includesAll(group(custom, 'signInUser'), ['login'], 'signInUser');
    });

    it('tolerates malformed entries from settings', () => {
      const junk = { a: 'b', c: [1, null, 'sea'], '': ['x'], '!!!': ['y'], z: ['!!!'] } as unknown as SynonymMap;
      const custom = new QueryExpander(junk);
      includesAll(group(custom, 'c'), ['sea'], 'c');
      assert.deepEqual(custom.expand('z'), [tokenize('z')]);
    });
  });

  describe('odd input', () => {
    it('returns no groups for an empty, blank or punctuation-only query', () => {
      for (const query of ['', '   ', '!!! ??? ...', '🚀🎉', '\u0000\ud800']) {
        assert.deepEqual(expander.expand(query), [], JSON.stringify(query));
      }
    });

    it('never throws, and every term fits the index alphabet', () => {
      const queries = [
        'a'.repeat(100_000),
        'pull request db '.repeat(20_000),
        '東京 pr ts '.repeat(10_000),
        Array.from({ length: 2000 }, (_, i) => String.fromCodePoint((i * 7919) % 0x110000)).join(''),
      ];
      for (const query of queries) {
        for (const terms of expander.expand(query)) {
          assert.ok(terms.length > 0);
          for (const term of terms) assert.match(term, TERM);
        }
      }
    });
  });
});
