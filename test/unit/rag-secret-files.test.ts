import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
  listDocuments,
  loadDocuments,
  type LoadResult,
  probeDocuments,
  readDocument,
  type SkippedFile,
} from '../../src/core/rag/loader';
import { secretFileReason, secretTextReason } from '../../src/core/secrets/files';
import { FAKE } from './fake-secrets';
import { rejectsWith, tempDir } from './helpers';

function write(root: string, files: Record<string, string>): void {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, ...relative.split('/'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/** relative path → reason, for the skipped files under `root`. */
function reasons(root: string, skipped: SkippedFile[]): Record<string, string> {
  return Object.fromEntries(
    skipped.map((file) => [path.relative(root, file.path).split(path.sep).join('/'), file.reason]),
  );
}

function loaded(result: LoadResult): string[] {
  return result.files.map((file) => file.relativePath);
}

/** Every extension the key files below have, so only their names keep them out. */
const EXTENSIONS = ['.md', '.txt', '.pem', '.key', '.p12', '.pfx', '.local', '.pub'];

describe('document sync and secrets', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir('wm-rag-secrets-');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  describe('secret files by name', () => {
    it('names environment files, keys and certificates, and nothing else', () => {
      for (const name of ['.env', '.env.local', '.ENV.production.md', '.envrc']) {
        assert.equal(secretFileReason(name), 'secret file: environment variables (.env*)', name);
      }
      for (const name of ['id_rsa', 'id_rsa.pub', 'id_dsa', 'id_ecdsa.txt', 'id_ed25519']) {
        assert.equal(secretFileReason(name), 'secret file: SSH key (id_*)', name);
      }
      for (const extension of ['.pem', '.key', '.p12', '.pfx']) {
        assert.equal(
          secretFileReason(`server${extension.toUpperCase()}`),
          `secret file: key or certificate (*${extension})`,
        );
      }
      for (const name of ['README.md', 'environment.md', 'keys.md', 'monkey.txt', 'id_card.md', 'my.env.md', '.pem']) {
        assert.equal(secretFileReason(name), undefined, name);
      }
    });

    it('skips them in a walk, each reported with its reason, and loads the rest', async () => {
      write(root, {
        'README.md': '# Project\n',
        '.env.local': 'A=1\n',
        '.env.production.md': 'notes\n',
        'certs/server.pem': 'cert\n',
        'certs/server.key': 'key\n',
        'certs/client.p12': 'p12\n',
        'certs/client.pfx': 'pfx\n',
        'ssh/id_rsa.pub': 'ssh-rsa AAAA\n',
        'ssh/id_ed25519.txt': 'key\n',
        'docs/guide.md': '# Guide\n',
      });
      const result = await loadDocuments(root, { extensions: EXTENSIONS });
      assert.deepEqual(loaded(result), ['README.md', 'docs/guide.md']);
      assert.deepEqual(reasons(root, result.skipped), {
        '.env.local': 'secret file: environment variables (.env*)',
        '.env.production.md': 'secret file: environment variables (.env*)',
        'certs/client.p12': 'secret file: key or certificate (*.p12)',
        'certs/client.pfx': 'secret file: key or certificate (*.pfx)',
        'certs/server.key': 'secret file: key or certificate (*.key)',
        'certs/server.pem': 'secret file: key or certificate (*.pem)',
        'ssh/id_ed25519.txt': 'secret file: SSH key (id_*)',
        'ssh/id_rsa.pub': 'secret file: SSH key (id_*)',
      });
    });

    it('skips them whatever the policy, and does not report files that would not be loaded anyway', async () => {
      write(root, { 'a.md': 'a\n', 'server.pem': 'cert\n', '.env': 'A=1\n' });
      const result = await loadDocuments(root, { secrets: 'allow' });
      assert.deepEqual(loaded(result), ['a.md']);
      assert.deepEqual(result.skipped, [], 'a .pem or .env is not a document with the default extensions');
    });

    it('skips one named explicitly, or probed, or reached through a link', async () => {
      write(root, { '.env': 'TOKEN=1\n', 'notes/id_rsa.md': 'key\n', 'real.md': 'text\n' });
      const named = await listDocuments(path.join(root, '.env'));
      assert.deepEqual(named.files, []);
      assert.deepEqual(reasons(root, named.skipped), { '.env': 'secret file: environment variables (.env*)' });

      const probed = await probeDocuments(root, ['notes/id_rsa.md', 'real.md']);
      assert.deepEqual(
        probed.files.map((file) => file.relativePath),
        ['real.md'],
      );
      assert.deepEqual(reasons(root, probed.skipped), { 'notes/id_rsa.md': 'secret file: SSH key (id_*)' });

      fs.symlinkSync(path.join(root, 'real.md'), path.join(root, 'id_dsa.md'));
      const walked = await listDocuments(root);
      assert.equal(reasons(root, walked.skipped)['id_dsa.md'], 'secret file: SSH key (id_*)');
    });
  });

  describe('secrets in a document', () => {
    const withToken = `# Deploy\n\nSteps.\n\nThe bot uses ${FAKE.githubClassic} to push.\n`;
    const mostlyKey = `deploy key:\n${FAKE.rsaPrivateKey}\n`;

    it('under block, skips a document that holds any secret, naming the kind and line', async () => {
      write(root, { 'deploy.md': withToken, 'clean.md': '# Clean\n' });
      const result = await loadDocuments(root, { secrets: 'block' });
      assert.deepEqual(loaded(result), ['clean.md']);
      assert.deepEqual(reasons(root, result.skipped), { 'deploy.md': 'holds a secret: github-token on line 5' });
    });

    it('under redact (the default), loads it as it is: the store redacts its chunks', async () => {
      write(root, { 'deploy.md': withToken });
      for (const secrets of [undefined, 'redact', 'allow'] as const) {
        const result = await loadDocuments(root, { secrets });
        assert.deepEqual(loaded(result), ['deploy.md'], String(secrets));
        assert.equal(result.files[0]!.text, withToken);
      }
    });

    it('under redact and block, skips a document that is mostly a private key; under allow, loads it', async () => {
      write(root, { 'keys/deploy.txt': mostlyKey });
      const redact = await loadDocuments(root);
      assert.deepEqual(loaded(redact), []);
      assert.deepEqual(reasons(root, redact.skipped), {
        'keys/deploy.txt': 'secret file: mostly a secret (private-key on line 2)',
      });
      const block = await loadDocuments(root, { secrets: 'block' });
      assert.deepEqual(reasons(root, block.skipped), { 'keys/deploy.txt': 'holds a secret: private-key on line 2' });
      assert.deepEqual(loaded(await loadDocuments(root, { secrets: 'allow' })), ['keys/deploy.txt']);
    });

    it('names the first three findings and counts the rest', () => {
      const text = [1, 2, 3, 4, 5].map((n) => `token${n} ${FAKE.npm.slice(0, -1)}${n}`).join('\n');
      assert.equal(
        secretTextReason(text, 'block'),
        'holds a secret: npm-token on line 1, npm-token on line 2, npm-token on line 3 and 2 more',
      );
      assert.equal(secretTextReason(text, 'redact'), undefined, 'not a private key: left to the store');
    });

    it('readDocument applies the policy it is given', async () => {
      write(root, { 'deploy.md': withToken });
      const file = { path: path.join(root, 'deploy.md'), relativePath: 'deploy.md' };
      const skipped = await readDocument(file, { root, secrets: 'block' });
      assert.deepEqual(skipped, { path: file.path, reason: 'holds a secret: github-token on line 5' });
      const read = await readDocument(file, { root });
      assert.ok('text' in read && read.text === withToken);
    });

    it('refuses an unknown policy', async () => {
      write(root, { 'a.md': 'a\n' });
      await rejectsWith(loadDocuments(root, { secrets: 'skip' as never }), 'INVALID_INPUT');
      await rejectsWith(
        readDocument({ path: path.join(root, 'a.md'), relativePath: 'a.md' }, { root, secrets: 'skip' as never }),
        'INVALID_INPUT',
      );
    });
  });
});
