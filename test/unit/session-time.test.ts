import * as assert from 'node:assert/strict';

import { timeInQuery, withoutTime } from '../../src/core/sessions/time-query';
import type { SessionInput } from '../../src/core/types';
import { openTemp } from './helpers';

/** A Saturday. */
const NOW = new Date('2023-05-20T12:00:00Z');
const span = (query: string) => {
  const time = timeInQuery(query, NOW);
  return time && [time.from.slice(0, 10), time.to.slice(0, 10), time.text];
};

describe('the time a question about a past conversation names', () => {
  it('is as wide as what it names: a day, a week, a month, a year, or the range given', () => {
    assert.deepEqual(span('what happened yesterday'), ['2023-05-19', '2023-05-20', 'yesterday']);
    assert.deepEqual(span('what did we decide about the cache last week?'), ['2023-05-08', '2023-05-15', 'last week']);
    assert.deepEqual(span('What did she do last Saturday?'), ['2023-05-13', '2023-05-14', 'last Saturday']);
    assert.deepEqual(span('the support group in March'), ['2023-03-01', '2023-04-01', 'March']);
    assert.deepEqual(span('everything from last month'), ['2023-04-01', '2023-05-01', 'last month']);
    assert.deepEqual(span('on 7 May 2023'), ['2023-05-07', '2023-05-08', 'on 7 May 2023']);
    assert.deepEqual(span('what did Mel paint in 2022'), ['2022-01-01', '2023-01-01', 'in 2022']);
    assert.deepEqual(span('from May 1 to May 3'), ['2023-05-01', '2023-05-04', 'from May 1 to May 3']);
    assert.deepEqual(span('what did we say between March and May?'), [
      '2023-03-01',
      '2023-06-01',
      'between March and May',
    ]);
    assert.deepEqual(span('from 2021 to 2022'), ['2021-01-01', '2023-01-01', 'from 2021 to 2022']);
    assert.deepEqual(span('anything since 2022'), ['2022-01-01', '2023-05-21', 'since 2022']);
    assert.deepEqual(span('this week'), ['2023-05-15', '2023-05-22', 'this week']);
    assert.deepEqual(span('two months ago'), ['2023-03-01', '2023-04-01', 'two months ago']);
    // A weekday later in this week than the reference is last week's.
    assert.deepEqual(span('the barbecue on Sunday'), ['2023-05-14', '2023-05-15', 'on Sunday']);
  });

  it('is nothing where a question names no time, or a number only looks like a year', () => {
    for (const query of [
      'before the release',
      'how do we deploy',
      'the v2023 release',
      'port 2022 config',
      '',
      'should we march on with the migration',
      'wed the couple',
      'the sun is shining',
      'postgres now',
      'we met at 10:30',
      'May I ask',
      'from the api to the db',
    ]) {
      assert.equal(timeInQuery(query, NOW), undefined, query);
    }
  });

  it('leaves the words that named it out of what is searched', () => {
    assert.equal(
      withoutTime(
        'what did we decide about the cache last week?',
        timeInQuery('what did we decide about the cache last week?', NOW)!,
      ),
      'what did we decide about the cache ?',
    );
  });
});

describe('session search with a time in the query', () => {
  const talk = (day: string, text: string): SessionInput => ({
    conversationId: 'ops',
    startedAt: `${day}T10:00:00Z`,
    messages: [{ role: 'user', name: 'Ana', content: text }],
  });

  it('puts the turns said then first, relative to the conversation’s last day, and still answers with the rest', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      await memory.sessions.save('a', undefined, talk('2023-03-14', 'The cache was flushed after the outage.'));
      await memory.sessions.save('a', undefined, talk('2023-05-09', 'We flushed the cache before the release.'));
      await memory.sessions.save('a', undefined, talk('2023-05-19', 'Ana went sailing.'));
      // The conversation's last day is 19 May: "last week" is 8 – 14 May.
      const hits = await memory.sessions.search('a', undefined, 'when was the cache flushed last week', 10, {
        conversationId: 'ops',
      });
      assert.deepEqual(
        hits.map((hit) => [hit.turn.text, hit.inQueryTime]),
        [
          ['We flushed the cache before the release.', true],
          ['The cache was flushed after the outage.', false],
        ],
      );
      // Given bounds win, and without a conversation "last week" is relative to now.
      const bounded = await memory.sessions.search('a', undefined, 'cache flushed last week', 10, {
        from: '2023-03-01T00:00:00Z',
        to: '2023-04-01T00:00:00Z',
      });
      assert.deepEqual(
        bounded.map((hit) => [hit.turn.text, hit.inQueryTime]),
        [['The cache was flushed after the outage.', undefined]],
      );
      const march = await memory.sessions.search('a', undefined, 'cache flushed in March', 10, {
        now: new Date('2024-01-10T00:00:00Z'),
      });
      assert.deepEqual(
        march.map((hit) => [hit.turn.text, hit.inQueryTime]),
        [
          ['The cache was flushed after the outage.', true],
          ['We flushed the cache before the release.', false],
        ],
        'the last March before now',
      );
      // A question that is only a time: what was said then, newest first.
      const then = await memory.sessions.search('a', undefined, 'what did we talk about last week', 10, {
        conversationId: 'ops',
      });
      assert.deepEqual(
        then.map((hit) => [hit.turn.text, hit.inQueryTime]),
        [['We flushed the cache before the release.', true]],
      );
      const plain = await memory.sessions.search('a', undefined, 'cache flushed in March', 10, {
        timeFromQuery: false,
      });
      assert.ok(plain.every((hit) => hit.inQueryTime === undefined));
    } finally {
      await cleanup();
    }
  });
});

describe('a session saved without times', () => {
  it('started when it was saved: "today" finds what was said in it', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const [session] = await memory.sessions.save('a', undefined, {
        messages: [{ role: 'user', content: 'We decided to keep the cache in Redis.' }],
      });
      assert.ok(session.startedAt, 'the save time');
      const [hit] = await memory.sessions.search('a', undefined, 'what did we decide about the cache today', 5);
      assert.equal(hit?.turn.time, session.startedAt);
      assert.equal(hit?.inQueryTime, true);
      // One given is kept.
      const [dated] = await memory.sessions.save('a', undefined, {
        startedAt: '2023-05-01T09:00:00Z',
        content: 'Old talk.',
      });
      assert.equal(dated.startedAt, '2023-05-01T09:00:00Z');
    } finally {
      await cleanup();
    }
  });
});
