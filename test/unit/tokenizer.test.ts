import * as assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';

import { MAX_TERM_LENGTH, normalize, splitWords, tokenize } from '../../src/core/search/tokenizer';
import { random } from './helpers';

/** What SQLite FTS5's unicode61 tokenizer (tokenchars '_') keeps as one token. */
const TERM = /^[\p{L}\p{N}_]+$/u;

const CORPUS = [
  'The quick brown fox jumps over the lazy dog.',
  'El rápido zorro marrón salta sobre el perro perezoso; ¿qué pasó?',
  'ＴｙｐｅＳｃｒｉｐｔ ﬁle ｶﾀｶﾅ ①②③ ½ x²',
  '東京都に行きます。日本語のテキスト、中文文本，한국어 텍스트',
  'getUserName max_retry_count HTTPServer kebab-case SCREAMING_CASE XMLHttpRequest APIs __init__',
  'vscode.window.showInformationMessage(os.path.join(a, b)) // call it',
  '42 3.14 -7 1,000 v1.2.3 1.2.3-beta node22 es2022 utf-8 ipv4 x86_64 0xFF 1e-9',
  'https://github.com/foo/bar-baz?q=1&x=y#section mailto:someone@example.com',
  '# Title\n\n**bold** _italic_ `code` [link](http://x.y/z) > quote\n- item\n| a | b |',
  "don't won't it's user's O’Reilly rock'n'roll",
  'emoji 🚀🎉 ❤️ 👍🏽 flags 🇪🇸 symbols © ® → ∑ ★ ♥ ¶ § • ‰',
  'İstanbul ǅungla straße ΣΊΣΥΦΟΣ Ελληνικά привет мир हिन्दी العربية עברית ไทย',
  'a\u0301 e\u0300 n\u0303 zalgo: z\u0334\u0350a\u0337\u0351l\u0335g\u0336o\u0338',
  '_ __ ___ - -- ... .a. a..b a--b a__b .hidden trailing. -flag --long-flag',
  'x'.repeat(MAX_TERM_LENGTH + 1) + ' ' + 'y'.repeat(MAX_TERM_LENGTH),
  '\u0000\u0007\t\r\n\u2028\u200b\u200d\ufeff\ud800 \udfff',
];

/** Random text drawn from the whole of Unicode, ASCII and joiners weighted up. */
function randomText(next: () => number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) {
    const pick = next();
    if (pick < 0.3) text += String.fromCharCode(32 + Math.floor(next() * 95));
    else if (pick < 0.4) text += " ._-'’"[Math.floor(next() * 6)];
    else if (pick < 0.55) text += String.fromCodePoint(0x4e00 + Math.floor(next() * 0x5000));
    else text += String.fromCodePoint(Math.floor(next() * 0x110000));
  }
  return text;
}

describe('tokenizer', () => {
  describe('normalize', () => {
    it('applies NFKC and folds case', () => {
      assert.equal(normalize('ＴｙｐｅＳｃｒｉｐｔ'), 'typescript');
      assert.equal(normalize('ﬁle'), 'file');
      assert.equal(normalize('ÉCOLE Straße'), 'école straße');
      assert.equal(normalize('ΣΟΣ'), 'σοσ');
    });
  });

  describe('words', () => {
    it('folds full-width letters and ligatures to the plain word', () => {
      assert.deepEqual(tokenize('ＴｙｐｅＳｃｒｉｐｔ'), tokenize('TypeScript'));
      assert.ok(tokenize('ＴｙｐｅＳｃｒｉｐｔ').includes('typescript'));
      assert.deepEqual(tokenize('ﬁle'), ['file']);
    });

    it('folds case', () => {
      assert.deepEqual(tokenize('HELLO World hello'), ['hello', 'world', 'hello']);
    });

    it('keeps order and repetitions, for term frequency', () => {
      assert.deepEqual(tokenize('cache miss, cache hit, cache'), ['cach', 'miss', 'cach', 'hit', 'cach']);
    });

    it('removes English stopwords', () => {
      assert.deepEqual(tokenize('The cat is on the mat and it was there'), ['cat', 'mat']);
    });

    it('removes Spanish stopwords', () => {
      assert.deepEqual(tokenize('el gato y la casa de los perros para todos'), ['gato', 'casa', 'perro']);
    });

    it('keeps developer words that the Spanish list would have dropped', () => {
      for (const word of ['os', 'dos', 'final', 'total', 'general', 'ver', 'c', 'r']) {
        assert.equal(tokenize(`the ${word}`).length, 1, word);
      }
    });

    it('checks contractions before dropping their apostrophe', () => {
      assert.deepEqual(tokenize("don't she'll it’s shell"), ['shell']);
      assert.deepEqual(tokenize("the user's o’reilly"), ['user', 'oreilli']);
    });

    it('keeps the stopwords of a text that has nothing else', () => {
      assert.deepEqual(tokenize('the'), ['the']);
      assert.deepEqual(tokenize('To be, or not to be'), ['to', 'be', 'or', 'not', 'to', 'be']);
      assert.ok(tokenize('de la').length > 0);
      assert.deepEqual(tokenize('the', { stopwordFallback: false }), []);
      assert.deepEqual(tokenize('the API'), ['api']);
    });

    it('stems English words with the Porter stemmer', () => {
      const [run] = tokenize('run');
      assert.equal(run, 'run');
      assert.deepEqual(tokenize('running runs ran'), ['run', 'run', 'ran']);
      const [configuration] = tokenize('configuration');
      assert.deepEqual(tokenize('configured configure configuring configurations'), Array(4).fill(configuration));
      assert.deepEqual(tokenize('connection connected'), ['connect', 'connect']);
    });

    it('leaves accented and non-Latin words unstemmed', () => {
      assert.deepEqual(tokenize('configuración ejecución привет'), ['configuración', 'ejecución', 'привет']);
    });

    it('drops terms longer than the limit instead of truncating them', () => {
      const fits = 'a'.repeat(MAX_TERM_LENGTH - 1) + 'b';
      assert.deepEqual(tokenize(fits), [fits]);
      assert.deepEqual(tokenize('x'.repeat(MAX_TERM_LENGTH + 1)), []);
      const longName = 'get' + 'Data'.repeat(20) + 'LongName';
      assert.deepEqual(tokenize(longName).slice(0, 2), ['get', 'data']);
      assert.ok(tokenize(longName).every((term) => term.length <= MAX_TERM_LENGTH));
    });
  });

  describe('CJK', () => {
    it('turns a run into overlapping bigrams interleaved with its characters', () => {
      assert.deepEqual(tokenize('東京都'), ['東', '東京', '京', '京都', '都']);
    });

    it('keeps a one-character run as a unigram', () => {
      assert.deepEqual(tokenize('京'), ['京']);
      assert.deepEqual(tokenize('a 京 b'), ['京', 'b']);
    });

    it('finds a one-character query inside a longer run', () => {
      const document = tokenize('東京都に住んでいます');
      for (const term of tokenize('京')) assert.ok(document.includes(term));
    });

    it("keeps a substring's terms consecutive in the text's terms, for phrase queries", () => {
      const document = tokenize('東京都庁').join(' ');
      for (const query of ['東京', '京都', '京都庁', '都']) {
        assert.ok(document.includes(tokenize(query).join(' ')), query);
      }
    });

    it('handles kana, Hangul and the prolonged sound mark, split from adjacent Latin', () => {
      assert.deepEqual(tokenize('Reactコード'), ['react', 'コ', 'コー', 'ー', 'ード', 'ド']);
      assert.deepEqual(tokenize('한국어'), ['한', '한국', '국', '국어', '어']);
      assert.deepEqual(tokenize('ｶﾀｶﾅ'), tokenize('カタカナ'));
      assert.deepEqual(tokenize('東京。大阪'), ['東', '東京', '京', '大', '大阪', '阪']);
    });

    it('counts characters outside the BMP as one character', () => {
      assert.deepEqual(tokenize('𠮷野'), ['𠮷', '𠮷野', '野']);
    });
  });

  describe('code', () => {
    const cases: [string, string[]][] = [
      ['getUserName', ['getusername', 'get', 'user', 'name']],
      ['UserAccountService', ['useraccountservice', 'user', 'account', 'servic']],
      ['max_retry_count', ['max_retry_count', 'max', 'retri', 'count']],
      ['MAX_RETRY_COUNT', ['max_retry_count', 'max', 'retri', 'count']],
      ['kebab-case', ['kebab_case', 'kebab', 'case']],
      ['SCREAMING_CASE', ['screaming_case', 'scream', 'case']],
      ['HTTPServer', ['httpserver', 'http', 'server']],
      ['XMLHttpRequest', ['xmlhttprequest', 'xml', 'http', 'request']],
      ['getHTTPResponse', ['gethttpresponse', 'get', 'http', 'respons']],
      ['isValid', ['isvalid', 'valid']],
      ['__init__', ['init']],
      ['APIs', ['api']],
      ['userIDs', ['userids', 'user', 'id']],
    ];
    for (const [identifier, expected] of cases) {
      it(`indexes ${identifier} whole and split`, () => {
        assert.deepEqual(tokenize(identifier), expected);
      });
    }

    it('indexes dotted names whole (joined by _), by compound segment and by part', () => {
      assert.deepEqual(tokenize('os.path'), ['os_path', 'os', 'path']);
      assert.deepEqual(tokenize('vscode.window.showInformationMessage'), [
        'vscode_window_showinformationmessage',
        'vscode',
        'window',
        'showinformationmessage',
        'show',
        'inform',
        'messag',
      ]);
    });

    it('lets a query for one part find the identifier', () => {
      const document = tokenize('call getUserName() before max_retry_count runs out');
      for (const query of ['user', 'names', 'retries', 'getUserName', 'max_retry_count']) {
        for (const term of tokenize(query)) assert.ok(document.includes(term), `${query}: ${term}`);
      }
    });

    it('ends a word at sentence punctuation', () => {
      assert.deepEqual(tokenize('Use os.path. Then -flag, and trailing- too.'), [
        'us',
        'os_path',
        'os',
        'path',
        'flag',
        'trail',
      ]);
    });
  });

  describe('numbers and versions', () => {
    const cases: [string, string[]][] = [
      ['42', ['42']],
      // One-character parts are dropped: the whole form keeps the exact match.
      ['3.14', ['3_14', '14']],
      ['v1.2.3', ['v1_2_3', 'v1']],
      ['1.2.3-beta', ['1_2_3_beta', 'beta']],
      ['node22', ['node22', 'node', '22']],
      ['es2022', ['es2022', '2022']],
      ['utf-8', ['utf_8', 'utf']],
      ['ipv4', ['ipv4', 'ipv']],
    ];
    for (const [text, expected] of cases) {
      it(`keeps ${text}`, () => {
        assert.deepEqual(tokenize(text), expected);
      });
    }
  });

  describe('punctuation, markup and symbols', () => {
    it('takes host and path parts from a URL', () => {
      assert.deepEqual(tokenize('https://github.com/foo/bar-baz'), [
        'http',
        'github_com',
        'github',
        'com',
        'foo',
        'bar_baz',
        'bar',
        'baz',
      ]);
    });

    it('ignores markdown syntax', () => {
      assert.deepEqual(tokenize('## Setup\n\n- **Install** `npm` [docs](#usage)\n> note'), [
        'setup',
        'instal',
        'npm',
        'doc',
        'usag',
        'note',
      ]);
    });

    it('drops emoji and symbols', () => {
      assert.deepEqual(tokenize('deploy 🚀 done ✅ 👍🏽 ❤️ © → ∑ ★'), ['deploi', 'done']);
      assert.deepEqual(tokenize('🎉🎉 ¶ §'), []);
    });

    it('returns nothing for empty or blank text', () => {
      assert.deepEqual(tokenize(''), []);
      assert.deepEqual(tokenize(' \n\t '), []);
      assert.deepEqual(tokenize('... --- ___ !!!'), []);
    });
  });

  describe('output', () => {
    it('uses letters, digits and _ only, never empty, never too long (fixed corpus)', () => {
      for (const text of CORPUS) {
        for (const term of tokenize(text)) {
          assert.match(term, TERM, JSON.stringify(text));
          assert.ok(term.length <= MAX_TERM_LENGTH);
        }
      }
    });

    it('uses letters, digits and _ only, never empty, never too long (random Unicode)', () => {
      const next = random(20240601);
      for (let i = 0; i < 2000; i++) {
        const text = randomText(next, 1 + Math.floor(next() * 80));
        for (const term of tokenize(text)) {
          assert.match(term, TERM, JSON.stringify(text));
          assert.ok(term.length <= MAX_TERM_LENGTH, JSON.stringify(text));
        }
      }
    });

    it('survives SQLite FTS5 unicode61 unchanged, one token per term', () => {
      const db = new DatabaseSync(':memory:');
      try {
        db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = "unicode61 remove_diacritics 0 tokenchars '_'");
                 CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
        const insert = db.prepare('INSERT INTO t(rowid, x) VALUES (?, ?)');
        const read = db.prepare('SELECT term FROM v WHERE doc = ? ORDER BY offset');
        CORPUS.forEach((text, index) => {
          const terms = tokenize(text);
          insert.run(index + 1, terms.join(' '));
          const tokens = read.all(index + 1).map((row) => row.term);
          assert.deepEqual(tokens, terms, JSON.stringify(text));
        });
      } finally {
        db.close();
      }
    });

    it('gives the same terms on every call, unaffected by callers changing a result', () => {
      const first = tokenize('getUserName running');
      first.push('junk');
      first[0] = 'changed';
      assert.deepEqual(tokenize('getUserName running'), ['getusername', 'get', 'user', 'name', 'run']);
    });

    it('finishes on 1 MB inputs of any shape', () => {
      const size = 1024 * 1024;
      const shapes = [
        CORPUS.join(' ')
          .repeat(Math.ceil(size / CORPUS.join(' ').length))
          .slice(0, size),
        'a'.repeat(size),
        'aB'.repeat(size / 2),
        'a.'.repeat(size / 2),
        '1.'.repeat(size / 2),
        "a'-".repeat(size / 3),
        '東'.repeat(size),
        '🎉'.repeat(size / 2),
        '_'.repeat(size),
      ];
      for (const text of shapes) assert.ok(Array.isArray(tokenize(text)));
      assert.ok(tokenize(shapes[0] ?? '').length > 10_000);
    });
  });

  describe('splitWords', () => {
    it('gives the words tokenize works on, with their case, CJK runs apart', () => {
      assert.deepEqual(splitWords('Call getUserName() on 東京.tokyo, v1.2!'), [
        'Call',
        'getUserName',
        'on',
        '東京',
        'tokyo',
        'v1.2',
      ]);
    });
  });
});
