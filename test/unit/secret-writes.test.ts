import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Embedder } from '../../src/core/ai/embedder';
import { Memory } from '../../src/core/memory';
import { runOperation } from '../../src/core/operations';
import { withProvenance } from '../../src/core/provenance';
import { FAKE } from './fake-secrets';
import { openTemp, rejectsWith, tempDir } from './helpers';

const NOTE = `Deploy with the key ${FAKE.awsAccessKey} from the ops vault`;

/** Records every text it is asked to embed: nothing secret may leave the store that way. */
class RecordingEmbedder implements Embedder {
  readonly model = 'recording';
  readonly seen: string[] = [];
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.seen.push(...texts);
    return texts.map(() => new Float32Array([1, 0, 0]));
  }
}

describe('the secret guard on every write path', () => {
  it('redacts by default: save, update, saveMany, sessions, import, and what is sent to the embedder', async () => {
    const embedder = new RecordingEmbedder();
    const { memory, cleanup } = await openTemp({ embedder });
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: NOTE, tags: [FAKE.githubClassic] });
      assert.equal(saved.content, 'Deploy with the key [redacted: aws-access-key] from the ops vault');
      assert.deepEqual(saved.tags, ['[redacted: github-token]']);
      const [updated] = await memory.memories.update(saved.id, { content: `token ${FAKE.githubClassic}` });
      assert.equal(updated.content, 'token [redacted: github-token]');
      const [[session]] = (await memory.sessions.saveMany([
        {
          agentId: 'a',
          input: { conversationId: 'c', messages: [{ role: 'user', content: `my key is ${FAKE.awsAccessKey}` }] },
        },
      ])) as unknown as [[{ messages: { content: string }[] }, unknown]];
      assert.equal(session.messages[0]!.content, 'my key is [redacted: aws-access-key]');
      await memory.import({
        version: 1,
        entities: { memories: [{ ...saved, id: 'memory-imported', content: `imported ${FAKE.awsAccessKey}` }] },
      });
      assert.equal((await memory.memories.get('memory-imported'))?.content, 'imported [redacted: aws-access-key]');
      // Nothing stored anywhere holds the key, history included.
      const history = JSON.stringify(await memory.history(saved.id));
      const dump = JSON.stringify(await memory.export());
      for (const text of [history, dump, ...embedder.seen]) {
        assert.ok(!text.includes(FAKE.awsAccessKey) && !text.includes(FAKE.githubClassic), text.slice(0, 200));
      }
      assert.ok(embedder.seen.length >= 2);
    } finally {
      await cleanup();
    }
  });

  it('blocks under `block`: SECRET_DETECTED naming the kind, field and line, never the secret; nothing written', async () => {
    const { memory, cleanup } = await openTemp({ secrets: 'block' });
    try {
      const error = await rejectsWith(
        memory.memories.save('a', undefined, { content: `line one\n${NOTE}` }),
        'SECRET_DETECTED',
      );
      assert.match(error.message, /aws-access-key in content on line 2/);
      assert.ok(!error.message.includes(FAKE.awsAccessKey));
      const [kept] = await memory.memories.save('a', undefined, { content: 'no secret here' });
      await rejectsWith(memory.memories.update(kept.id, { content: NOTE }), 'SECRET_DETECTED');
      await rejectsWith(
        memory.memories.saveMany([
          { agentId: 'a', input: { content: 'fine' } },
          { agentId: 'a', input: { content: NOTE } },
        ]),
        'SECRET_DETECTED',
      );
      assert.deepEqual(
        (await memory.memories.list('a')).map((m) => m.content),
        ['no secret here'],
      );
      assert.equal((await memory.history(kept.id)).length, 1);
    } finally {
      await cleanup();
    }
  });

  it('keeps secrets under `allow`, and refuses an unknown policy before opening anything', async () => {
    const { memory, cleanup } = await openTemp({ secrets: 'allow' });
    try {
      const [saved] = await memory.memories.save('a', undefined, { content: NOTE });
      assert.equal(saved.content, NOTE);
    } finally {
      await cleanup();
    }
    const dir = path.join(tempDir(), 'store');
    await rejectsWith(Memory.open({ dir, secrets: 'maybe' as never }), 'INVALID_INPUT');
    assert.equal(fs.existsSync(dir), false);
  });

  it('document sync stores chunks with their secrets redacted', async () => {
    const { memory, cleanup } = await openTemp();
    const docs = tempDir('wm-docs-');
    try {
      fs.writeFileSync(
        path.join(docs, 'setup.md'),
        `# Setup\n\nExport AWS_ACCESS_KEY_ID=${FAKE.awsAccessKey} first.\n`,
      );
      await memory.rag.sync(docs, 'a');
      const [chunk] = await memory.knowledge.list('a');
      assert.match(chunk!.content, /AWS_ACCESS_KEY_ID=\[redacted: [a-z-]+\] first/);
    } finally {
      await cleanup();
      fs.rmSync(docs, { recursive: true, force: true });
    }
  });

  it('under `block`, document sync skips a document holding a secret, and key files always, saying why', async () => {
    const { memory, cleanup } = await openTemp({ secrets: 'block' });
    const docs = tempDir('wm-docs-');
    try {
      fs.writeFileSync(
        path.join(docs, 'setup.md'),
        `# Setup\n\nExport AWS_ACCESS_KEY_ID=${FAKE.awsAccessKey} first.\n`,
      );
      fs.writeFileSync(path.join(docs, 'guide.md'), '# Guide\n\nNothing secret.\n');
      fs.writeFileSync(path.join(docs, '.env.md'), '# env\n\nnothing here but the name\n');
      const report = await memory.rag.sync(docs, 'a');
      const reasons = Object.fromEntries(report.skipped.map((file) => [path.basename(file.path), file.reason]));
      assert.match(reasons['setup.md']!, /holds a secret: aws-access-key on line 3/);
      assert.match(reasons['.env.md']!, /secret file: environment variables/);
      assert.deepEqual(
        (await memory.knowledge.list('a')).map((chunk) => chunk.source),
        ['guide.md'],
      );
    } finally {
      await cleanup();
      fs.rmSync(docs, { recursive: true, force: true });
    }
  });

  it('a tool result says what was redacted', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const result = await runOperation({ store: memory, scope: { agentId: 'a' } }, 'memory_save', { content: NOTE });
      assert.match(result.text, /redacted before it was stored: aws-access-key/);
    } finally {
      await cleanup();
    }
  });

  it('finds secrets already stored, redacts the current versions, and purges the older ones keeping verify whole', async () => {
    const dir = tempDir();
    const leaky = await Memory.open({ dir, secrets: 'allow' });
    const [one] = await leaky.memories.save('a', undefined, { content: NOTE });
    await leaky.memories.update(one.id, { content: `${NOTE} (updated)` });
    await leaky.memories.update(one.id, { content: 'clean now' });
    const [two] = await leaky.memories.save('a', undefined, { content: `token ${FAKE.githubClassic}` });
    const [clean] = await leaky.memories.save('a', undefined, { content: 'nothing to see' });
    await leaky.close();
    const memory = await Memory.open({ dir });
    try {
      const holders = await memory.secretAudit.scan();
      assert.deepEqual(
        holders.map((h) => [h.id, h.current.map((f) => `${f.kind} ${f.field} ${f.line}`), h.olderVersions]),
        [
          [one.id, [], 2],
          [two.id, ['github-token content 1'], 0],
        ],
      );
      await memory.secretAudit.redact([two.id]);
      assert.equal((await memory.memories.get(two.id))?.content, 'token [redacted: github-token]');
      const report = await memory.secretAudit.purge([one.id, two.id]);
      assert.equal(report.versions, 3);
      // Gone from the disk too: not in the database file's free pages, nor in its write-ahead log.
      for (const file of ['memory.db', 'memory.db-wal']) {
        const bytes = fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file)) : Buffer.alloc(0);
        assert.equal(bytes.indexOf(FAKE.awsAccessKey), -1, `${file} still holds the key`);
        assert.equal(bytes.indexOf(FAKE.githubClassic), -1, `${file} still holds the token`);
      }
      assert.deepEqual(await memory.secretAudit.scan(), []);
      const verify = await memory.verify();
      assert.deepEqual(verify.errors, []);
      const history = await memory.history(one.id);
      assert.deepEqual(
        history.map((entry) => entry.entity?.content),
        [
          'clean now',
          'Deploy with the key [redacted: aws-access-key] from the ops vault (updated)',
          'Deploy with the key [redacted: aws-access-key] from the ops vault',
        ],
      );
      assert.ok(await memory.memories.get(clean.id));
      await rejectsWith(memory.secretAudit.purge([clean.id]), 'NOT_FOUND');
      await rejectsWith(memory.secretAudit.redact([]), 'INVALID_INPUT');
    } finally {
      await memory.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an id that holds a secret instead of redacting it (an id must keep naming its scope)', async () => {
    const { memory, cleanup } = await openTemp({ secrets: 'redact' });
    try {
      const error = await rejectsWith(
        memory.memories.save('a', FAKE.githubClassic, { content: 'x' }),
        'SECRET_DETECTED',
      );
      assert.match(error.message, /The userId looks like a secret \(github-token\); an id may not hold one/);
      assert.ok(!error.message.includes(FAKE.githubClassic));
      assert.equal(await memory.memories.count('a'), 0);
    } finally {
      await cleanup();
    }
  });

  it('keeps the content limit after redaction, whose marks can be longer than what they replace', async () => {
    const { memory, cleanup } = await openTemp();
    try {
      const keys = `${FAKE.awsAccessKey} `.repeat(Math.floor((1024 * 1024) / (FAKE.awsAccessKey.length + 1)));
      await rejectsWith(memory.memories.save('a', undefined, { content: keys }), 'CONTENT_TOO_LARGE');
    } finally {
      await cleanup();
    }
  });

  it('redacting keeps each entity in its state: a held write still waits, a retired memory stays retired', async () => {
    const dir = tempDir();
    const leaky = await Memory.open({ dir, secrets: 'allow' });
    const [wrong] = await leaky.memories.save('a', undefined, { content: `old key ${FAKE.awsAccessKey}` });
    await leaky.memories.save('a', undefined, { content: 'new key in the vault', supersedes: wrong.id });
    const [held] = await withProvenance({ kind: 'mcp', name: 'x' }, () =>
      leaky.memories.save('a', undefined, { content: `agent saw ${FAKE.githubClassic}` }),
    );
    await leaky.close();
    const memory = await Memory.open({ dir });
    try {
      const redacted = await memory.secretAudit.redact([wrong.id, held.id]);
      assert.equal(redacted.length, 2);
      assert.equal(await memory.memories.get(wrong.id), null, 'still superseded');
      assert.equal(await memory.memories.get(held.id), null, 'still waiting');
      const [pending] = await memory.review.list();
      assert.deepEqual([pending!.entity.id, pending!.entity.content], [held.id, 'agent saw [redacted: github-token]']);
      assert.deepEqual(
        (await memory.memories.superseded('a')).map((item) => item.entity.content),
        ['old key [redacted: aws-access-key]'],
      );
      assert.deepEqual((await memory.verify()).errors, []);
    } finally {
      await memory.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
