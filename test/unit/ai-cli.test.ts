import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { Command } from 'commander';

import { Memory } from '../../src/core/memory';
import { registerAiCommands } from '../../src/server/cli/ai-commands';
import { registerRagCommands } from '../../src/server/cli/rag-commands';
import { json } from './fake-ai';
import { tempDir } from './helpers';

const MINED = json({
  memories: [{ content: 'CI runs on GitHub Actions.', category: 'fact', tags: ['ci'] }],
  skills: [],
  profile: [],
});

/** Runs one command in-process and returns what it printed. */
async function run(args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerAiCommands(program);
  registerRagCommands(program);
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk: string) => ((out += chunk), true);
  try {
    await program.parseAsync(['node', 'workspace-memory', ...args]);
  } finally {
    process.stdout.write = write;
  }
  return out;
}

describe('cli: mine and consolidate', () => {
  let dir: string;
  let server: http.Server;
  let replies: string[];
  const requests: { model: string; messages: { content: string }[] }[] = [];
  const saved = { ...process.env };

  before(async () => {
    // An OpenAI-compatible chat endpoint answering from `replies`.
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        requests.push(JSON.parse(body) as (typeof requests)[number]);
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ choices: [{ message: { content: replies.shift() ?? '{}' } }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env.WORKSPACE_MEMORY_CHAT_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    process.env.WORKSPACE_MEMORY_CHAT_MODEL = 'fake-model';
  });
  after(async () => {
    process.env = saved;
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    dir = tempDir('wm-ai-cli-');
    requests.length = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const withStore = async <T>(work: (memory: Memory) => Promise<T>): Promise<T> => {
    const memory = await Memory.open({ dir });
    try {
      return await work(memory);
    } finally {
      await memory.close();
    }
  };

  it('mines a session, or only shows the plan with --dry-run', async () => {
    const id = await withStore(
      async (memory) => (await memory.sessions.save('a', 'u', { content: 'We set up CI.' }))[0].id,
    );
    replies = [MINED];
    const planned = await run(['mine', id, '--dir', dir, '--dry-run']);
    assert.match(planned, /would add {5}memory\/fact {2}CI runs on GitHub Actions\./);
    assert.match(planned, /dry run, nothing written/);
    assert.equal(requests[0]?.model, 'fake-model');
    assert.equal(await withStore(async (memory) => memory.memories.count('a', 'u')), 0);

    replies = [MINED];
    const report = JSON.parse(await run(['mine', id, '--dir', dir, '--json'])) as {
      created: { id: string }[];
      pendingReview: number;
    };
    assert.equal(report.created.length, 1);
    // Mined memories wait for a person's review by default: not served until approved.
    assert.equal(report.pendingReview, 1);
    assert.equal(await withStore((memory) => memory.get(report.created[0]!.id)), null);
    const [pending] = await withStore((memory) => memory.review.list());
    assert.equal(pending!.commit.by.kind, 'mining');
    // The session is marked mined all the same: what it held waits for review, not the mining.
    assert.equal((await withStore((memory) => memory.sessions.get(id)))?.mined, true);
    await withStore((memory) => memory.review.approveAll());
    assert.equal(
      (await withStore((memory) => memory.get(report.created[0]!.id)))?.content,
      'CI runs on GitHub Actions.',
    );
  });

  it('consolidates the chosen types for an agent and user', async () => {
    const ids = await withStore(async (memory) => [
      (await memory.memories.save('a', 'u', { content: 'CI runs on GitHub Actions.' }))[0].id,
      (await memory.memories.save('a', 'u', { content: 'Our CI is GitHub Actions.' }))[0].id,
    ]);
    replies = [json({ merge: [{ ids, content: 'CI runs on GitHub Actions.', reason: 'same fact' }], outdated: [] })];
    const text = await run(['consolidate', '--dir', dir, '--agent', 'a', '--user', 'u', '--type', 'memory']);
    assert.match(text, /memory: 2 reviewed in 1 request\n/);
    assert.match(
      text,
      /1 merged, 1 deleted, 0 not applied\n {2}2 writes wait for review: `workspace-memory review list`/,
    );
    // Proposed, not done, until a person approves: then the merge and the delete are applied.
    assert.equal(await withStore(async (memory) => memory.memories.count('a', 'u')), 2);
    await withStore((memory) => memory.review.approveAll());
    assert.equal(await withStore(async (memory) => memory.memories.count('a', 'u')), 1);
  });

  it('escapes what the model wrote, keeps each reason on its line, and counts in agreeing words', async () => {
    const session = await withStore(
      async (memory) => (await memory.sessions.save('a', 'u', { content: 'We set up CI.' }))[0].id,
    );
    replies = [
      json({
        memories: [{ content: 'CI \x1b[31mruns\x1b[0m \u202eon GitHub.', category: 'fact', tags: [] }],
        skills: [],
        profile: [],
      }),
    ];
    const planned = await run(['mine', session, '--dir', dir, '--dry-run']);
    assert.match(planned, /memory\/fact {2}CI \\x1b\[31mruns\\x1b\[0m \\u202eon GitHub\.\n/);
    assert.match(planned, /nothing written: 1 memory, 0 skills, 0 profile facts planned, 0 skipped \(1 request\)/);

    const ids = await withStore(async (memory) => [
      (await memory.memories.save('a', 'u', { content: 'CI runs on GitHub Actions.' }))[0].id,
      (await memory.memories.save('a', 'u', { content: 'Our CI is GitHub Actions.' }))[0].id,
    ]);
    // A reason that would otherwise print a line of its own, one that reads like the summary.
    const reason = 'same fact\n  9 merged, 0 deleted, 0 not applied \u202e';
    replies = [json({ merge: [{ ids, content: 'CI runs on GitHub Actions.', reason }], outdated: [] })];
    const text = await run(['consolidate', '--dir', dir, '--agent', 'a', '--user', 'u', '--type', 'memory']);
    assert.match(text, /: same fact\\x0a {2}9 merged, 0 deleted, 0 not applied \\u202e\n {2}1 merged, 1 deleted/);
  });

  it('rag query --answer prints the answer, escaped, then a cited line of each chunk', async () => {
    const docs = tempDir('wm-ai-cli-docs-');
    try {
      fs.writeFileSync(
        path.join(docs, 'ops.md'),
        '# Ops\n\nBrokers run on three hosts.\nKafka keeps data seven days.\n',
      );
      await withStore((memory) => memory.rag.sync(docs, 'default'));
      replies = ['Seven days \x1b[5m[1]\x1b[0m.'];
      const text = await run(['rag', 'query', 'kafka', '--dir', dir, '--answer']);
      assert.equal(
        text,
        'Seven days \\x1b[5m[1]\\x1b[0m.\n\n---\n[1] ops.md:4 — Ops\n    Kafka keeps data seven days.\n',
      );
    } finally {
      fs.rmSync(docs, { recursive: true, force: true });
    }
  });

  it('refuses an unknown --type and a missing chat model', async () => {
    await assert.rejects(
      run(['consolidate', '--dir', dir, '--type', 'sessions']),
      /--type takes memory, skill, knowledge/,
    );
    delete process.env.WORKSPACE_MEMORY_CHAT_MODEL;
    try {
      await assert.rejects(run(['mine', 'session-x', '--dir', dir]), /mine needs WORKSPACE_MEMORY_CHAT_URL/);
    } finally {
      process.env.WORKSPACE_MEMORY_CHAT_MODEL = 'fake-model';
    }
  });
});
