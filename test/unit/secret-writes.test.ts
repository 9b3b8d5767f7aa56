import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Embedder } from '../../src/core/ai/embedder';
import { Memory } from '../../src/core/memory';
import { runOperation } from '../../src/core/operations';
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
});
