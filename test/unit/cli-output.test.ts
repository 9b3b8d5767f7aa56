import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { Memory } from '../../src/core/memory';
import type { Entity } from '../../src/core/types';
import { snippetOf } from '../../src/server/cli/snippet';
import { escapeForTerminal } from '../../src/server/cli/terminal-text';
import { tempDir } from './helpers';

const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

// The scope options default to these variables: keep the caller's out of the way.
const ENV: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.startsWith('WORKSPACE_MEMORY_')),
);

function cli(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { input: '', encoding: 'utf8', env: ENV });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Text an agent could save over MCP to take over the user's terminal: colour
 * (CSI through ESC, and through the C1 CSI alone), a bell, a screen clear,
 * DEL, a right-to-left override and isolate, a bidi mark, a zero-width space
 * and an invisible tag character.
 */
const HOSTILE =
  'red \x1b[31mRED\x1b[0m bell\x07 clear\x9b2J del\x7f rtl \u202eevil\u202c iso\u2067x\u2069 mark\u200f zw\u200bsp tag\u{e0041}';
const ESCAPED =
  'red \\x1b[31mRED\\x1b[0m bell\\x07 clear\\x9b2J del\\x7f rtl \\u202eevil\\u202c iso\\u2067x\\u2069 mark\\u200f zw\\u200bsp tag\\u{e0041}';

/** Any character a terminal would act on or hide, other than newline and tab (and CR before a newline). */
const RAW_UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]|\r(?!\n)/u;

function assertSafe(text: string, what: string): void {
  const raw = RAW_UNSAFE.exec(text);
  assert.equal(raw, null, `${what} prints U+${raw?.[0].codePointAt(0)?.toString(16)} raw: ${JSON.stringify(text)}`);
}

describe('cli output in a terminal', function () {
  this.timeout(60_000);

  describe('escapeForTerminal', () => {
    it('shows controls, DEL, bidi and invisible format characters as escapes', () => {
      assert.equal(escapeForTerminal(HOSTILE), ESCAPED);
      const cases: [string, string][] = [
        ['\x00\x1b\x7f\x80\x9b\x9f', '\\x00\\x1b\\x7f\\x80\\x9b\\x9f'],
        ['\u202a\u202b\u202c\u202d\u202e', '\\u202a\\u202b\\u202c\\u202d\\u202e'],
        ['\u2066\u2067\u2068\u2069\u200e\u200f\u061c', '\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c'],
        ['soft\u00adhyphen bom\ufeff', 'soft\\xadhyphen bom\\ufeff'],
        ['line\u2028para\u2029', 'line\\u2028para\\u2029'],
        ['lone \ud800 surrogate', 'lone \\ud800 surrogate'],
        ['over\rwrite', 'over\\x0dwrite'],
      ];
      for (const [text, shown] of cases) assert.equal(escapeForTerminal(text), shown, JSON.stringify(text));
    });

    it('keeps the layout and every script: newline, tab, CRLF, joiners in emoji and Persian', () => {
      const text = 'a\tb\nc\r\nd 👩‍💻 می‌خواهم 日本語 العربية café \\x1b';
      assert.equal(escapeForTerminal(text), text);
    });

    it("escapes line breaks and tabs too for a field on a listing's line, and is idempotent", () => {
      assert.equal(escapeForTerminal('a\nb\tc\r\nd', 'line'), 'a\\x0ab\\x09c\\x0d\\x0ad');
      assert.equal(escapeForTerminal(escapeForTerminal(HOSTILE)), ESCAPED);
    });
  });

  describe('snippetOf', () => {
    it('picks the line with the most query terms, matched through the search tokenizer', () => {
      const content = '## Staging\n\nThe cluster is rebuilt nightly.\nWe are deploying with GitHub Actions.';
      assert.deepEqual(snippetOf(content, 'deploy github'), {
        lineInChunk: 3,
        text: 'We are deploying with GitHub Actions.',
      });
    });

    it('shows a long line from just before its match, and the first non-blank line when nothing matches', () => {
      const long = `${'filler words here '.repeat(20)}the kafka retention is seven days ${'and more '.repeat(30)}`;
      const snippet = snippetOf(`\n${long}`, 'kafka');
      assert.equal(snippet.lineInChunk, 1);
      assert.match(snippet.text, /^…[^…]*the kafka retention is seven days.*…$/);
      assert.ok(snippet.text.length <= 161, snippet.text);
      assert.deepEqual(snippetOf('\n\n  first\nsecond', 'absent'), { lineInChunk: 2, text: 'first' });
    });
  });

  describe('the workspace-memory command', () => {
    let dir: string;
    let saved: Entity;

    before(() => {
      if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: ROOT });
    });

    beforeEach(async () => {
      dir = tempDir('wm-cli-output-');
      assert.equal(cli(['init', '--dir', dir]).code, 0);
      // The author of commits is free text as well.
      const memory = await Memory.open({ dir, author: 'me\u202e\x1b[8m' });
      try {
        // An agent id may hold bidi and C1 characters (ids refuse only C0 controls), and it is the commit's author.
        [saved] = await memory.memories.save('agent\u202e\x9b', 'u', {
          content: `${HOSTILE}\nsecond line\ttabbed\r\nthird\rline`,
          tags: ['t\u202eag'],
        });
        await memory.profiles.save('agent\u202e\x9b', 'u', { content: HOSTILE });
      } finally {
        await memory.close();
      }
    });

    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    const scope = () => ['--dir', dir, '--agent', 'agent\u202e\x9b', '--user', 'u'];

    it('escapes stored text in get, list, search, history and recall', () => {
      const outputs: [string, string[]][] = [
        ['get', ['get', saved.id, '--dir', dir]],
        ['list', ['list', 'memory', ...scope()]],
        ['search', ['search', 'red evil', ...scope()]],
        ['history', ['history', saved.id, '--dir', dir]],
        ['recall', ['recall', 'red evil', ...scope()]],
        // The catalogue's text, as an MCP client gets it, is escaped only where the CLI prints it.
        ['call memory_history', ['call', 'memory_history', JSON.stringify({ id: saved.id }), ...scope()]],
        ['call profile_get', ['call', 'profile_get', '{}', ...scope()]],
      ];
      for (const [name, args] of outputs) {
        const result = cli(args);
        assert.equal(result.code, 0, `${name}: ${result.stderr}`);
        assertSafe(result.stdout, name);
        assertSafe(result.stderr, name);
        // One-line views flatten whitespace; the escapes of what was stored show all the same.
        assert.ok(result.stdout.includes('red \\x1b[31mRED\\x1b[0m bell\\x07'), `${name}: ${result.stdout}`);
        assert.ok(result.stdout.includes('rtl \\u202eevil\\u202c'), `${name}: ${result.stdout}`);
      }
      const detail = cli(['get', saved.id, '--dir', dir]).stdout;
      // The whole content keeps its lines, tab and CRLF; the lone CR, which would overwrite the line, is escaped.
      assert.ok(detail.endsWith(`${ESCAPED}\nsecond line\ttabbed\r\nthird\\x0dline\n`), detail);
      // A field is one line of the detail: its bidi and C1 characters are escaped too.
      assert.match(detail, /^agentId: agent\\u202e\\x9b$/m);
      assert.match(detail, /^tags: \["t\\u202eag"\]$/m);
      // The author's escape characters are taken out of the recorded writer; what is left is escaped.
      assert.match(cli(['history', saved.id, '--dir', dir]).stdout, /create {5}create memory\n {4}by me\\u202e \[8m\n/);
      assert.match(cli(['list', 'memory', ...scope()]).stdout, / \[t\\u202eag\] /);
    });

    it('prints --json and export exactly as stored', () => {
      const get = cli(['get', saved.id, '--dir', dir, '--json']);
      assert.equal((JSON.parse(get.stdout) as Entity).content, saved.content);
      const list = cli(['list', 'memory', ...scope(), '--json']);
      assert.equal((JSON.parse(list.stdout) as { items: Entity[] }).items[0]?.content, saved.content);
      const history = cli(['history', saved.id, '--dir', dir, '--json']);
      assert.equal((JSON.parse(history.stdout) as { entity: Entity }[])[0]?.entity.content, saved.content);
      const exported = cli(['export', '--dir', dir]);
      assert.equal(exported.code, 0, exported.stderr);
      const data = JSON.parse(exported.stdout) as { entities: { memories: Entity[] } };
      assert.equal(data.entities.memories[0]?.content, saved.content);
      // JSON leaves the bidi characters as they are: the bytes are the stored ones, not escapes of them.
      assert.ok(exported.stdout.includes('\u202eevil'));
    });

    it('escapes what error messages quote from the command line', () => {
      const missing = cli(['get', 'memory-\u202eflipped\x9b', '--dir', dir]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^workspace-memory: .*memory-\\u202eflipped\\x9b.*\[NOT_FOUND\]\n$/);
      const unknown = cli(['list\x1b[2J', '--dir', dir]);
      assert.equal(unknown.code, 2);
      assertSafe(unknown.stderr, 'an unknown command');
      assert.match(unknown.stderr, /unknown command 'list\\x1b\[2J'/);
    });

    it('shows a line of each document chunk with its file and line, the whole chunk with --full', () => {
      const docs = tempDir('wm-cli-output-docs-');
      try {
        fs.writeFileSync(
          path.join(docs, 'ops.md'),
          '# Ops\n\nIntro.\n\n## Kafka\n\nBrokers run on three hosts.\nKafka retention is \x1b[8mseven\x1b[0m days \u202eyes.\n',
        );
        assert.equal(cli(['rag', 'sync', docs, '--dir', dir, '--prefix', '.']).code, 0);
        const query = cli(['rag', 'query', 'kafka retention', '--dir', dir, '--limit', '1']);
        assert.equal(query.code, 0, query.stderr);
        assert.equal(
          query.stdout,
          '[1] ops.md:8 — Ops › Kafka\n    Kafka retention is \\x1b[8mseven\\x1b[0m days \\u202eyes.\n',
        );
        const full = cli(['rag', 'query', 'kafka retention', '--dir', dir, '--limit', '1', '--full']);
        assertSafe(full.stdout, 'rag query --full');
        assert.equal(
          full.stdout,
          '[1] ops.md:5 — Ops › Kafka\n## Kafka\n\nBrokers run on three hosts.\nKafka retention is \\x1b[8mseven\\x1b[0m days \\u202eyes.\n',
        );
        const json = JSON.parse(cli(['rag', 'query', 'kafka retention', '--dir', dir, '--json']).stdout) as {
          chunks: { entity: Entity }[];
        };
        assert.ok(json.chunks[0]?.entity.content.includes('\x1b[8mseven\x1b[0m days \u202eyes.'));
        assert.equal(cli(['rag', 'query', 'zeppelin', '--dir', dir]).stdout, 'no matching documents\n');
      } finally {
        fs.rmSync(docs, { recursive: true, force: true });
      }
    });

    it('stops quietly when the reader closes the pipe (| head -1)', async () => {
      const child = spawn(process.execPath, [CLI, 'history', saved.id, '--dir', dir], {
        env: ENV,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      // Closed before the command writes a byte: its first write fails with EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(stderr, '', 'no stack trace');
      assert.equal(code, 0);
    });

    it('counts in words that agree with the number', () => {
      const one = tempDir('wm-cli-output-one-');
      const docs = tempDir('wm-cli-output-docs-');
      try {
        assert.equal(cli(['init', '--dir', one]).code, 0);
        assert.equal(cli(['save', 'memory', '--content', 'alone', '--dir', one]).code, 0);
        assert.equal(cli(['verify', '--dir', one]).stdout, 'valid: 1 entity, 1 commit, 1 object, 0 errors\n');
        assert.equal(cli(['reindex', '--dir', one]).stdout, 'indexed 1 entity\n');
        fs.writeFileSync(path.join(docs, 'one.md'), '# One\n\nA single chunk.\n');
        assert.equal(cli(['rag', 'sync', docs, '--dir', one]).code, 0);
        assert.match(cli(['rag', 'status', '--dir', one]).stdout, /^1 file, 1 chunk$/m);
        assert.match(cli(['recall', 'single chunk', '--dir', one]).stderr, /^1 item, \d+ characters, ~\d+ tokens\n$/);
        assert.equal(cli(['reindex', '--dir', one]).stdout, 'indexed 2 entities\n');
      } finally {
        fs.rmSync(one, { recursive: true, force: true });
        fs.rmSync(docs, { recursive: true, force: true });
      }
    });
  });
});
