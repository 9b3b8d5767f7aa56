import * as assert from 'node:assert/strict';

import { MemoryError, type MemoryErrorCode } from '../../src/core/errors';
import {
  assertAgentFor,
  assertContentSize,
  assertEntityType,
  assertId,
  assertJsonInput,
  assertLimit,
  assertOptionalId,
  assertPage,
  LIMITS,
  validateInput,
} from '../../src/core/validation';

/** The MemoryError `check` throws, after checking its code. */
function thrown(check: () => unknown, code: MemoryErrorCode): MemoryError {
  try {
    check();
  } catch (error) {
    assert.ok(error instanceof MemoryError, `expected a MemoryError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a MemoryError ${code}, but nothing was thrown`);
}

describe('validation rules and their messages', () => {
  describe('ids', () => {
    it('names what is wrong and which id it is', () => {
      assert.equal(
        thrown(() => assertId('', 'agent id'), 'INVALID_ID').message,
        'The agent id must be a non-empty string.',
      );
      assert.equal(thrown(() => assertId(42), 'INVALID_ID').message, 'The id must be a non-empty string.');
      assert.equal(
        thrown(() => assertId('x'.repeat(LIMITS.maxIdLength + 1), 'user id'), 'INVALID_ID').message,
        'The user id is longer than 200 characters.',
      );
      assert.equal(assertId('x'.repeat(LIMITS.maxIdLength)), 'x'.repeat(LIMITS.maxIdLength));
      assert.match(
        thrown(() => assertId('a/b', 'memory id'), 'INVALID_ID').message,
        /^The memory id "a\/b" contains a character that is not allowed \(\/, \\, :, "\.\.", or a control character\)\.$/,
      );
    });

    it('shows control characters in a refused id as \\u escapes and cuts a long one at 57 characters', () => {
      const escaped = thrown(() => assertId('a\u0001b\u007fc\u001f'), 'INVALID_ID').message;
      assert.ok(escaped.includes('"a\\u0001b\\u007fc\\u001f"'), escaped);
      const long = `${'y'.repeat(100)}:`;
      const cut = thrown(() => assertId(long), 'INVALID_ID').message;
      assert.ok(cut.includes(`"${'y'.repeat(57)}..."`), cut);
      // Exactly 60 characters are shown whole.
      const sixty = `${'z'.repeat(59)}:`;
      assert.ok(thrown(() => assertId(sixty), 'INVALID_ID').message.includes(`"${sixty}"`));
    });

    it('accepts single dots, dashes and non-ASCII letters, and refuses every control character', () => {
      for (const id of ['a.b', '.hidden', 'a-b_c', 'größe', '日本語', 'a b']) assert.equal(assertId(id), id);
      for (const code of [0, 1, 0x0a, 0x1f, 0x7f])
        thrown(() => assertId(`a${String.fromCharCode(code)}b`), 'INVALID_ID');
    });

    it('treats a missing optional id as absent but still checks a given one', () => {
      assert.equal(assertOptionalId(undefined, 'parent'), undefined);
      assert.equal(assertOptionalId(null, 'parent'), undefined);
      assert.equal(assertOptionalId('p1', 'parent'), 'p1');
      assert.match(thrown(() => assertOptionalId('', 'parent'), 'INVALID_ID').message, /^The parent must/);
    });
  });

  describe('types, agents and pages', () => {
    it('refuses an unknown entity type, listing the known ones', () => {
      assert.equal(assertEntityType('skill'), 'skill');
      assert.equal(
        thrown(() => assertEntityType('note\u0000'), 'UNKNOWN_TYPE').message,
        'Unknown entity type "note\\u0000"; expected one of memory, skill, knowledge, session, profile.',
      );
      thrown(() => assertEntityType(undefined), 'UNKNOWN_TYPE');
    });

    it('lets only skills, knowledge and profiles belong to the shared agent', () => {
      for (const type of ['skill', 'knowledge', 'profile'] as const)
        assert.equal(assertAgentFor(type, '_shared'), '_shared');
      for (const type of ['memory', 'session'] as const) {
        assert.equal(assertAgentFor(type, 'agent'), 'agent');
        assert.equal(
          thrown(() => assertAgentFor(type, '_shared'), 'INVALID_INPUT').message,
          `A ${type} cannot belong to the shared agent "_shared"; the shared types are skill, knowledge, profile.`,
        );
      }
    });

    it('accepts limits from 1 to 200 and says why others are refused', () => {
      assert.equal(assertLimit(1), 1);
      assert.equal(assertLimit(LIMITS.maxPageSize), LIMITS.maxPageSize);
      assert.equal(
        thrown(() => assertLimit(0), 'INVALID_INPUT').message,
        'The limit must be a whole number of at least 1 (got 0).',
      );
      thrown(() => assertLimit(2.5), 'INVALID_INPUT');
      thrown(() => assertLimit(Number.NaN), 'INVALID_INPUT');
      assert.equal(
        thrown(() => assertLimit(201), 'LIMIT_TOO_LARGE').message,
        'The limit 201 is over the maximum of 200.',
      );
    });

    it('defaults a page to the first 50 and refuses a negative or fractional offset', () => {
      assert.deepEqual(assertPage(), { limit: 50, offset: 0 });
      assert.deepEqual(assertPage({ limit: 3, offset: 7 }), { limit: 3, offset: 7 });
      assert.equal(
        thrown(() => assertPage({ offset: -1 }), 'INVALID_INPUT').message,
        'The offset must be a whole number of at least 0 (got -1).',
      );
      thrown(() => assertPage({ offset: 0.5 }), 'INVALID_INPUT');
      thrown(() => assertPage({ limit: 0 }), 'INVALID_INPUT');
    });
  });

  describe('JSON inputs', () => {
    it('names the path of a key that is not allowed, and only the input for a size', () => {
      const withKey = JSON.parse('{"a":[{"__proto__":1}]}') as unknown;
      assert.equal(
        thrown(() => assertJsonInput(withKey, 'The thing'), 'INVALID_INPUT').message,
        "The thing: a[0].__proto__ is not allowed as a key (it can reach an object's prototype); rename it.",
      );
      const big = thrown(
        () => assertJsonInput({ a: 'x'.repeat(20) }, 'The thing', { maxDepth: 5, maxBytes: 10 }),
        'CONTENT_TOO_LARGE',
      );
      assert.match(big.message, /^The thing [^:]/);
      assertJsonInput({ a: 'x' }, 'The thing', { maxDepth: 5, maxBytes: 10 });
    });

    it('names only the input when the input itself is the problem', () => {
      const message = thrown(
        () => assertJsonInput({}, 'The thing', { maxDepth: 0, maxBytes: 10 }),
        'INVALID_INPUT',
      ).message;
      assert.match(message, /^The thing [^:]/);
    });
  });

  describe('entity inputs', () => {
    it('refuses an input that is an array, null or a string', () => {
      for (const input of [[], [{ content: 'x' }], null, 'x']) {
        assert.equal(
          thrown(() => validateInput('memory', input), 'INVALID_INPUT').message,
          'The memory input must be an object.',
        );
      }
    });

    it('lists at most three problems, each with its field', () => {
      const message = thrown(
        () => validateInput('knowledge', { content: 1, title: 2, source: 3, version: 4, chunkIndex: 'x' }),
        'INVALID_INPUT',
      ).message;
      assert.match(message, /^Invalid knowledge: content: [^;]+; title: [^;]+; source: [^;]+\.$/);
      const nested = thrown(
        () => validateInput('session', { messages: [{ role: 'robot', content: 'x' }] }),
        'INVALID_INPUT',
      ).message;
      assert.match(nested, /^Invalid session: messages\.0\.role: /);
      const unknown = thrown(() => validateInput('memory', { content: 'x', colour: 'red' }), 'INVALID_INPUT');
      assert.match(unknown.message, /^Invalid memory: [^;]*"colour"\.$/);
    });

    it('bounds knowledge fields: title, heading path, line numbers, chunk index and source hash', () => {
      const base = { content: 'k' };
      assert.equal(validateInput('knowledge', { ...base, title: 't'.repeat(1000) }).title?.length, 1000);
      thrown(() => validateInput('knowledge', { ...base, title: 't'.repeat(1001) }), 'INVALID_INPUT');
      const twenty = Array.from({ length: 20 }, (_, i) => `h${i}`);
      assert.deepEqual(validateInput('knowledge', { ...base, headingPath: twenty }).headingPath, twenty);
      thrown(() => validateInput('knowledge', { ...base, headingPath: [...twenty, 'h20'] }), 'INVALID_INPUT');
      assert.equal(validateInput('knowledge', { ...base, chunkIndex: 0 }).chunkIndex, 0);
      thrown(() => validateInput('knowledge', { ...base, chunkIndex: -1 }), 'INVALID_INPUT');
      assert.equal(validateInput('knowledge', { ...base, startLine: 1, endLine: 1 }).startLine, 1);
      thrown(() => validateInput('knowledge', { ...base, startLine: 0 }), 'INVALID_INPUT');
      thrown(() => validateInput('knowledge', { ...base, endLine: 1.5 }), 'INVALID_INPUT');
      const hash = 'a'.repeat(64);
      assert.equal(validateInput('knowledge', { ...base, sourceHash: hash }).sourceHash, hash);
      for (const bad of [`${hash}0`, `x${hash}`, 'A'.repeat(64), 'a'.repeat(63)]) {
        assert.match(
          thrown(() => validateInput('knowledge', { ...base, sourceHash: bad }), 'INVALID_INPUT').message,
          /sourceHash: a SHA-256 in hex/,
        );
      }
    });

    it('checks session messages and dates', () => {
      const at = '2026-01-01T10:00:00+02:00';
      const session = validateInput('session', {
        messages: [{ role: 'tool', content: 'ok', timestamp: at }],
        startedAt: at,
        mined: false,
      });
      assert.equal(session.startedAt, at);
      assert.equal(session.mined, false);
      const roles = ['user', 'assistant', 'system', 'tool'] as const;
      const messages = roles.map((role) => ({ role, content: role }));
      assert.deepEqual(validateInput('session', { messages }).messages, messages);
      thrown(() => validateInput('session', { content: 'x', startedAt: '2026-01-01' }), 'INVALID_INPUT');
      thrown(
        () => validateInput('session', { content: 'x', messages: [{ role: 'user', content: 'x', extra: 1 }] }),
        'INVALID_INPUT',
      );
    });

    it('needs content or a message for a new session, but not for an update', () => {
      for (const input of [{}, { content: '' }, { messages: [] }, { content: '', messages: [] }]) {
        assert.equal(
          thrown(() => validateInput('session', input), 'INVALID_INPUT').message,
          'A session needs content or at least one message.',
        );
      }
      assert.deepEqual(validateInput('session', { content: '', messages: [{ role: 'user', content: 'hi' }] }), {
        content: '',
        messages: [{ role: 'user', content: 'hi' }],
      });
      assert.deepEqual(validateInput('session', { content: '   ' }), { content: '   ' });
      // A message may be blank too (a tool call's empty answer).
      assert.deepEqual(validateInput('session', { messages: [{ role: 'tool', content: ' ' }] }), {
        messages: [{ role: 'tool', content: ' ' }],
      });
      assert.deepEqual(validateInput('session', {}, true), {});
      assert.deepEqual(validateInput('session', { content: '' }, true), { content: '' });
    });

    it('counts the messages of a session together against the content limit', () => {
      const half = 'm'.repeat(LIMITS.maxContentBytes / 2);
      const messages = [
        { role: 'user' as const, content: half },
        { role: 'assistant' as const, content: half },
      ];
      // Joined with a line break: one byte over.
      const error = thrown(() => validateInput('session', { messages }), 'CONTENT_TOO_LARGE');
      assert.match(error.message, /^The session content is 1\.00 MB; the maximum is 1 MB \(UTF-8\)\.$/);
      const fits = [
        { role: 'user' as const, content: half },
        { role: 'assistant' as const, content: half.slice(1) },
      ];
      assert.equal(validateInput('session', { messages: fits }).messages?.length, 2);
    });

    it('refuses blank content for every type but a session, also in an update', () => {
      for (const type of ['memory', 'skill', 'knowledge', 'profile'] as const) {
        assert.equal(
          thrown(() => validateInput(type, { content: ' \n\t ' }), 'INVALID_INPUT').message,
          `The ${type} content is empty.`,
        );
        thrown(() => validateInput(type, { content: '' }, true), 'INVALID_INPUT');
      }
    });

    it('reports the size of content that is too large in MB', () => {
      assertContentSize('memory', 'é'.repeat(LIMITS.maxContentBytes / 2));
      assert.equal(
        thrown(() => assertContentSize('skill', 'é'.repeat(LIMITS.maxContentBytes)), 'CONTENT_TOO_LARGE').message,
        'The skill content is 2.00 MB; the maximum is 1 MB (UTF-8).',
      );
    });

    it('trims tags, drops blank ones, keeps the first of duplicates and says how many were too many', () => {
      assert.deepEqual(validateInput('memory', { content: 'x', tags: [' b ', 'a', '', '   ', 'b', 'a '] }).tags, [
        'b',
        'a',
      ]);
      assert.deepEqual(validateInput('skill', { tags: [] }, true), { tags: [] });
      const tags = Array.from({ length: 51 }, (_, i) => `t${i}`);
      assert.equal(
        thrown(() => validateInput('memory', { content: 'x', tags }), 'TOO_MANY_TAGS').message,
        '51 tags given; the maximum is 50.',
      );
      // The length counts after trimming.
      assert.deepEqual(validateInput('memory', { content: 'x', tags: [` ${'t'.repeat(100)} `] }).tags, [
        't'.repeat(100),
      ]);
      assert.equal(
        thrown(() => validateInput('memory', { content: 'x', tags: ['t'.repeat(101)] }), 'INVALID_INPUT').message,
        'A tag is longer than 100 characters.',
      );
    });

    it('leaves out fields given as undefined and copies the input', () => {
      const input = { content: 'x', tags: undefined, category: undefined, supersedes: 'old' };
      const value = validateInput('memory', input);
      assert.deepEqual(Object.keys(value).sort(), ['content', 'supersedes']);
      assert.notEqual(value, input);
      assert.deepEqual(validateInput('memory', { category: undefined }, true), {});
    });

    it('checks profile metadata against its own 64 KB limit and names it', () => {
      const ok = validateInput('profile', { content: 'me', metadata: { k: 'v'.repeat(LIMITS.maxMetadataBytes - 2) } });
      assert.equal(ok.metadata?.k, 'v'.repeat(LIMITS.maxMetadataBytes - 2));
      const error = thrown(
        () => validateInput('profile', { content: 'me', metadata: { k: 'v'.repeat(LIMITS.maxMetadataBytes - 1) } }),
        'CONTENT_TOO_LARGE',
      );
      assert.match(error.message, /^The profile metadata /);
      const key = thrown(
        () => validateInput('profile', { content: 'me', metadata: JSON.parse('{"a":{"__proto__":{}}}') as unknown }),
        'INVALID_INPUT',
      );
      assert.match(key.message, /^The profile input: metadata\.a\.__proto__ /);
    });
  });
});
