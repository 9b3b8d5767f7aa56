import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { MemoryError } from '../../src/core/errors';
import { loadOrCreateToken, TOKEN_FILE, tokenCheck } from '../../src/server/http/token';
import { tempDir } from './helpers';

const POSIX = process.platform !== 'win32';

function refused(dir: string, reason: RegExp): MemoryError {
  let caught: unknown;
  try {
    loadOrCreateToken(dir);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof MemoryError, `expected a refusal, got ${String(caught)}`);
  assert.equal(caught.code, 'INVALID_INPUT');
  assert.match(caught.message, reason);
  assert.match(caught.message, /Delete it and start the server again/);
  return caught;
}

describe('http token', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir('wm-http-token-');
    file = path.join(dir, TOKEN_FILE);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is made at the first start: 32 random bytes as base64url, in a file only its owner can read', () => {
    const first = loadOrCreateToken(dir);
    assert.equal(first.created, true);
    assert.equal(first.file, file);
    assert.match(first.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(first.token, 'base64url').length, 32);
    assert.equal(fs.readFileSync(file, 'utf8'), `${first.token}\n`);
    if (POSIX) assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    // Nothing of the temporary file it was written as is left.
    assert.deepEqual(fs.readdirSync(dir).sort(), ['.gitignore', TOKEN_FILE]);
  });

  it('is the same at every later start, and differs between stores', () => {
    const first = loadOrCreateToken(dir);
    const again = loadOrCreateToken(dir);
    assert.equal(again.created, false);
    assert.equal(again.token, first.token);
    const other = tempDir('wm-http-token-');
    try {
      assert.notEqual(loadOrCreateToken(other).token, first.token);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('keeps the store folder out of git, leaving a .gitignore already there alone', () => {
    loadOrCreateToken(dir);
    assert.match(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), /^\*$/m);
    const mine = tempDir('wm-http-token-');
    try {
      fs.writeFileSync(path.join(mine, '.gitignore'), 'memory.db\n');
      loadOrCreateToken(mine);
      assert.equal(fs.readFileSync(path.join(mine, '.gitignore'), 'utf8'), 'memory.db\n');
    } finally {
      fs.rmSync(mine, { recursive: true, force: true });
    }
  });

  it('takes a token file the user wrote, if it is long enough', () => {
    const own = 'my-own-token_0123456789abcdefghijklmnopqrstuvwxyz';
    fs.writeFileSync(file, `${own}\n`, { mode: 0o600 });
    assert.equal(loadOrCreateToken(dir).token, own);
  });

  (POSIX ? it : it.skip)('refuses a token file others can read or write, and leaves it as it is', () => {
    for (const mode of [0o640, 0o604, 0o660, 0o602, 0o644]) {
      fs.writeFileSync(file, `${'a'.repeat(43)}\n`);
      fs.chmodSync(file, mode);
      refused(dir, new RegExp(`mode ${mode.toString(8)}\\), so the token may have leaked`));
      assert.equal(fs.statSync(file).mode & 0o777, mode);
    }
  });

  (POSIX ? it : it.skip)('refuses a link at the token’s name, wherever it leads', () => {
    const elsewhere = path.join(tempDir('wm-http-token-'), 'token');
    try {
      fs.writeFileSync(elsewhere, `${'a'.repeat(43)}\n`, { mode: 0o600 });
      fs.symlinkSync(elsewhere, file);
      refused(dir, /is a symbolic link/);
      fs.rmSync(file);
      // A dangling link is not followed to create the token elsewhere either.
      const target = path.join(path.dirname(elsewhere), 'new-token');
      fs.symlinkSync(target, file);
      refused(dir, /is a symbolic link/);
      assert.equal(fs.existsSync(target), false);
    } finally {
      fs.rmSync(path.dirname(elsewhere), { recursive: true, force: true });
    }
  });

  it('refuses a token file that holds no token', () => {
    for (const text of ['', 'short', `${'a'.repeat(42)}`, `${'a'.repeat(43)} b`, `${'a'.repeat(43)}=`]) {
      fs.writeFileSync(file, text, { mode: 0o600 });
      refused(dir, /does not hold a token/);
    }
  });

  it('refuses a folder at the token’s name', () => {
    fs.mkdirSync(file, { mode: 0o700 });
    refused(dir, /is not a regular file/);
  });

  describe('the check', () => {
    const token = 'Vq3yXH0i2J5n0m4oN1dDkzJ8bQm0v2cY9xXo7nT3u5w';
    const check = tokenCheck(token);

    it('accepts the token itself', () => {
      assert.equal(check.matches(token), true);
    });

    it('refuses any other string, of any length, without throwing', () => {
      const guesses = [
        '',
        token.slice(0, -1),
        token.slice(1),
        `${token}x`,
        `x${token}`,
        `${token.slice(0, 42)}W`,
        token.toLowerCase(),
        `${token}\n`,
        ` ${token}`,
        'é'.repeat(43),
        'x'.repeat(1_000_000),
      ];
      for (const guess of guesses) assert.equal(check.matches(guess), false, guess.slice(0, 50));
    });
  });
});
