import * as assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';

import * as preset from '@secretlint/secretlint-rule-preset-recommend';

import { isMemoryError, type MemoryError } from '../../src/core/errors';
import { entropy, kindOfName } from '../../src/core/secrets/assignments';
import { guardFields, guardText, scanSecrets, type SecretFinding } from '../../src/core/secrets/guard';
import { RULE_ANCHORS, RULE_KINDS, ruleName } from '../../src/core/secrets/secretlint';
import { FAKE, fakeChars, gcpServiceAccountJson } from './fake-secrets';

/** The kind and exact text of each finding. */
function found(text: string): { kind: string; secret: string }[] {
  return scanSecrets(text).map((finding) => ({ kind: finding.kind, secret: text.slice(finding.start, finding.end) }));
}

function refusal(run: () => unknown): MemoryError {
  try {
    run();
  } catch (error) {
    assert.ok(isMemoryError(error, 'SECRET_DETECTED'), String(error));
    return error;
  }
  assert.fail('expected SECRET_DETECTED');
}

describe('secret guard', () => {
  describe('what the scanner finds', () => {
    // Each case: a text as it would be written to a memory, the kind, and the secret redaction must cut out.
    const cases: { name: string; text: string; kind: string; secret: string }[] = [
      {
        name: 'an AWS access key ID',
        text: `The CI user's key is ${FAKE.awsAccessKey} (rotated monthly).`,
        kind: 'aws-access-key',
        secret: FAKE.awsAccessKey,
      },
      {
        name: 'an AWS secret access key',
        text: `[default]\naws_secret_access_key = ${FAKE.awsSecretKey}\nregion = eu-west-1`,
        kind: 'aws-secret-key',
        secret: FAKE.awsSecretKey,
      },
      {
        name: 'a classic GitHub token',
        text: `git clone https://github.com/acme/app and use ${FAKE.githubClassic} for the API.`,
        kind: 'github-token',
        secret: FAKE.githubClassic,
      },
      {
        name: 'a fine-grained GitHub token',
        text: `export GH_TOKEN=${FAKE.githubFineGrained}`,
        kind: 'github-token',
        secret: FAKE.githubFineGrained,
      },
      {
        name: 'a Slack bot token',
        text: `The release bot posts with ${FAKE.slackBot} to #releases.`,
        kind: 'slack-token',
        secret: FAKE.slackBot,
      },
      {
        name: 'a Slack incoming webhook',
        text: `Alerts go to ${FAKE.slackWebhook} (channel #ops).`,
        kind: 'slack-webhook',
        secret: FAKE.slackWebhook,
      },
      {
        name: 'an npm access token',
        text: `Publishing uses ${FAKE.npm} from the release vault.`,
        kind: 'npm-token',
        secret: FAKE.npm,
      },
      {
        name: 'an OpenAI project key',
        text: `OPENAI_API_KEY is ${FAKE.openai} for the eval job.`,
        kind: 'openai-key',
        secret: FAKE.openai,
      },
      {
        name: 'an Anthropic key',
        text: `The summariser calls Claude with ${FAKE.anthropic}.`,
        kind: 'anthropic-key',
        secret: FAKE.anthropic,
      },
      {
        name: 'a live Stripe key',
        text: `Charges in production are made with ${FAKE.stripe}.`,
        kind: 'stripe-key',
        secret: FAKE.stripe,
      },
      {
        name: 'a GitLab token',
        text: `The mirror job pushes with ${FAKE.gitlab}.`,
        kind: 'gitlab-token',
        secret: FAKE.gitlab,
      },
      {
        name: 'a Hugging Face token',
        text: `Models are pulled with ${FAKE.huggingface}.`,
        kind: 'huggingface-token',
        secret: FAKE.huggingface,
      },
      {
        name: 'a SendGrid key',
        text: `Mail goes out through SendGrid (${FAKE.sendgrid}).`,
        kind: 'sendgrid-key',
        secret: FAKE.sendgrid,
      },
      {
        name: 'an RSA private key (PKCS#8)',
        text: `The deploy key:\n\n${FAKE.rsaPrivateKey}\n\nKeep it out of the repo.`,
        kind: 'private-key',
        secret: FAKE.rsaPrivateKey,
      },
      {
        name: 'an EC private key',
        text: `${FAKE.ecPrivateKey}\n`,
        kind: 'private-key',
        secret: FAKE.ecPrivateKey,
      },
      {
        name: 'an encrypted private key',
        text: `backup.key holds:\n${FAKE.encryptedPrivateKey}`,
        kind: 'private-key',
        secret: FAKE.encryptedPrivateKey,
      },
      {
        name: 'an OpenSSH private key',
        text: `id_ed25519 of the build box:\n${FAKE.opensshPrivateKey}`,
        kind: 'private-key',
        secret: FAKE.opensshPrivateKey,
      },
      {
        name: 'basic auth in a URL',
        text: `The registry is https://${FAKE.basicAuth}@registry.acme-corp.io/v2/ for pushes.`,
        kind: 'basic-auth',
        secret: FAKE.basicAuth,
      },
      {
        name: 'a database connection string',
        text: `DATABASE_URL points at postgres://${FAKE.databaseAuth}@db.internal:5432/orders in staging.`,
        kind: 'database-password',
        secret: FAKE.databaseAuth,
      },
      {
        name: 'a database connection string whose user holds an @',
        text: `mongodb+srv://ops@acme:${FAKE.databaseAuth.split(':')[1]}@cluster0.mongodb.net/app?retryWrites=true`,
        kind: 'database-password',
        secret: `ops@acme:${FAKE.databaseAuth.split(':')[1]}`,
      },
      {
        name: 'a quoted password assignment',
        text: `const client = new Client({ user: 'svc' });\npassword = "${FAKE.password}"`,
        kind: 'password',
        secret: FAKE.password,
      },
      {
        name: 'an API key in JSON',
        text: `{\n  "endpoint": "https://api.acme-corp.io",\n  "apiKey": "${FAKE.apiKey}"\n}`,
        kind: 'api-key',
        secret: FAKE.apiKey,
      },
      {
        name: 'a token in an env file',
        text: `NODE_ENV=production\nSERVICE_TOKEN=${FAKE.token}\nPORT=8080`,
        kind: 'token',
        secret: FAKE.token,
      },
      {
        name: 'a client secret in YAML',
        text: `oauth:\n  client_id: acme-portal\n  client_secret: ${FAKE.clientSecret}  # from the console\n`,
        kind: 'secret',
        secret: FAKE.clientSecret,
      },
      {
        name: 'a password flag on a command line',
        text: `mysqldump --user=backup --password=${FAKE.password} orders > orders.sql`,
        kind: 'password',
        secret: FAKE.password,
      },
      {
        name: 'a password keyword argument',
        text: `conn = psycopg2.connect(host="db", passwd='${FAKE.password}')`,
        kind: 'password',
        secret: FAKE.password,
      },
    ];
    for (const { name, text, kind, secret } of cases) {
      it(`finds ${name}`, () => {
        assert.deepEqual(found(text), [{ kind, secret }]);
      });
    }

    const providers: [keyof typeof FAKE, string][] = [
      ['shopify', 'shopify-token'],
      ['grafana', 'grafana-token'],
      ['groq', 'groq-key'],
      ['linear', 'linear-key'],
      ['notion', 'notion-token'],
      ['onePassword', '1password-token'],
      ['vault', 'vault-token'],
      ['vercel', 'vercel-token'],
      ['databricks', 'databricks-token'],
      ['docker', 'docker-token'],
      ['figma', 'figma-token'],
      ['cloudflare', 'cloudflare-token'],
      ['tailscale', 'tailscale-key'],
    ];
    for (const [name, kind] of providers) {
      it(`finds a ${kind}`, () => {
        assert.deepEqual(found(`The ${name} credential is ${FAKE[name]} (do not share).`), [
          { kind, secret: FAKE[name] },
        ]);
      });
    }

    it('runs every rule synchronously: one text wakes them all', () => {
      const all = Object.values(FAKE).join('\n') + `\nhttps://${FAKE.basicAuth}@h.io ${FAKE.slackWebhook}`;
      for (const [name, anchor] of Object.entries(RULE_ANCHORS)) assert.match(all, anchor, name);
      assert.ok(scanSecrets(all).length >= providers.length);
    });

    it("finds a GCP service account's key file, the key inside it counted once", () => {
      const json = gcpServiceAccountJson();
      assert.deepEqual(scanSecrets(json), [{ kind: 'gcp-service-account', line: 1, start: 0, end: json.length }]);
      // The same key, not as a whole file, is still a private key.
      const quoted = `creds = ${json}`;
      assert.deepEqual(
        found(quoted).map((finding) => finding.kind),
        ['private-key'],
      );
    });

    it('gives each finding the line it starts on, in text order', () => {
      const text = [
        `token ${FAKE.githubClassic}`,
        'nothing here',
        `DB_PASSWORD=${FAKE.password}`,
        '',
        '',
        'still nothing',
        `key ${FAKE.awsAccessKey} and ${FAKE.npm}`,
      ].join('\n');
      assert.deepEqual(
        scanSecrets(text).map(({ kind, line }) => ({ kind, line })),
        [
          { kind: 'github-token', line: 1 },
          { kind: 'password', line: 3 },
          { kind: 'aws-access-key', line: 7 },
          { kind: 'npm-token', line: 7 },
        ],
      );
    });

    it('knows every rule of the preset: each has a kind and an anchor for its prefilter', () => {
      const names = preset.rules
        .map((rule) => ruleName(rule.meta.id))
        .filter((name) => name !== 'filter-comments')
        .sort();
      assert.deepEqual(names, Object.keys(RULE_KINDS).sort());
      assert.deepEqual(names, Object.keys(RULE_ANCHORS).sort());
    });

    it("finds an AWS secret key that secretlint's pattern misses (it ends in +) by its name", () => {
      const key = `${FAKE.awsSecretKey.slice(0, 39)}+`;
      assert.deepEqual(found(`aws_secret_access_key=${key}`), [{ kind: 'access-key', secret: key }]);
    });

    it('ignores secretlint-disable comments: a text cannot exempt itself', () => {
      const text = `<!-- secretlint-disable -->\ntoken ${FAKE.githubClassic}\n<!-- secretlint-enable -->`;
      assert.deepEqual(found(text), [{ kind: 'github-token', secret: FAKE.githubClassic }]);
    });
  });

  describe('what the scanner leaves alone', () => {
    const sha1 = createHash('sha1').update('a').digest('hex');
    const sha256 = createHash('sha256').update('a').digest('hex');
    const clean: { name: string; text: string }[] = [
      {
        name: 'plain prose',
        text:
          'We decided to keep the password reset flow in the auth service. The token expiry is one hour, and ' +
          'the secret rotation runs on Mondays. Ask Alice about the API key policy before changing it.',
      },
      {
        name: 'placeholders in code samples',
        text: [
          'password = "changeme"',
          'token: <your-token>',
          'API_KEY=${TOKEN}',
          'apiKey: process.env.API_KEY',
          'const secret = process.env.CLIENT_SECRET;',
          'password: "xxxxxxxxxxxx"',
          'client_secret: YOUR_CLIENT_SECRET_HERE',
          'token = "ghp_..."',
          '"password": "P@ssw0rd123"',
          "auth: { user: 'me', pass: 'hunter2' }",
          'secret_key_base: "<%= ENV["SECRET_KEY_BASE"] %>"',
          'password: "bm90IGEgcmVhbCBwYXNzd29yZA=="',
        ].join('\n'),
      },
      {
        name: 'names of values in code rather than values',
        text: [
          'const token = accessToken;',
          'token = request_token',
          'password = getPassword(user)',
          'if (token == expected) return;',
          'const apiKey = config.apiKey;',
          'token => token.trim()',
          'max_tokens: 4096',
          'tokenizer: "wordpiece-v2-uncased"',
          'password_hash: "$2b$12$"',
        ].join('\n'),
      },
      {
        name: "AWS's documented example keys",
        text: 'AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      },
      {
        name: 'UUIDs, git SHAs and sha256 hashes',
        text: `Request ${randomUUID()} failed at commit ${sha1} (short ${sha1.slice(0, 7)}); digest sha256:${sha256}.`,
      },
      {
        name: 'hashes and ids assigned to ordinary names',
        text: `commit: ${sha1}\nid = "${randomUUID()}"\n"integrity": "sha512-${Buffer.from(sha256, 'hex').toString('base64')}"`,
      },
      {
        name: 'a base64 image',
        text: `![logo](data:image/png;base64,${Buffer.from(fakeChars('abcdefgh', 3000, 40)).toString('base64')})`,
      },
      {
        name: 'paths, identifiers and URLs without credentials',
        text:
          'Config lives in src/extension/docsync/SyncScheduler.ts; see https://github.com/acme/app/blob/main/README.md ' +
          'and mail ops@acme-corp.io. Run NODE_OPTIONS=--max-old-space-size=4096 npm run build.',
      },
      {
        name: 'private key blocks in documentation',
        text:
          '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n' +
          '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA(your key here)\n-----END RSA PRIVATE KEY-----',
      },
      {
        name: 'public keys and certificates',
        text: '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB me@laptop',
      },
    ];
    for (const { name, text } of clean) {
      it(`leaves ${name} alone`, () => {
        assert.deepEqual(found(text), []);
      });
    }
  });

  describe('our assignment check', () => {
    it('names: the last part (or the last two) must name a secret', () => {
      for (const [name, kind] of [
        ['password', 'password'],
        ['DB_PASSWORD', 'password'],
        ['smtpPass', 'password'],
        ['GITHUB_TOKEN', 'token'],
        ['_authToken', 'token'],
        ['api_key', 'api-key'],
        ['apiKey', 'api-key'],
        ['APIKEY', 'api-key'],
        ['x-api-key', 'api-key'],
        ['AWS_SECRET_ACCESS_KEY', 'access-key'],
        ['client_secret', 'secret'],
        ['SECRET_KEY_BASE', 'secret'],
        ['privateKey', 'private-key'],
        ['credentials', 'credential'],
      ] as const) {
        assert.equal(kindOfName(name), kind, name);
      }
      for (const name of [
        'password_hash',
        'max_tokens',
        'tokenizer',
        'key',
        'monkey',
        'bypass',
        'passport',
        'secretary',
      ]) {
        assert.equal(kindOfName(name), undefined, name);
      }
    });

    it('entropy is in bits per character', () => {
      assert.equal(entropy('aaaa'), 0);
      assert.equal(entropy('abcdefgh'), 3);
      assert.ok(Math.abs(entropy('aabb') - 1) < 1e-9);
    });
  });

  describe('guardText', () => {
    const text = `Deploy notes\nuse ${FAKE.githubClassic} for the API\nDB_PASSWORD=${FAKE.password}\n`;

    it('redact replaces each secret by its kind and keeps the rest', () => {
      const guarded = guardText(text, 'redact');
      assert.equal(
        guarded.text,
        'Deploy notes\nuse [redacted: github-token] for the API\nDB_PASSWORD=[redacted: password]\n',
      );
      assert.deepEqual(
        guarded.findings.map(({ kind, line }) => ({ kind, line })),
        [
          { kind: 'github-token', line: 2 },
          { kind: 'password', line: 3 },
        ],
      );
      // Redacted text holds nothing more to redact.
      assert.deepEqual(guardText(guarded.text, 'redact'), { text: guarded.text, findings: [] });
    });

    it('redact turns overlapping finds into one', () => {
      const json = gcpServiceAccountJson();
      assert.equal(guardText(`${json}`, 'redact').text, '[redacted: gcp-service-account]');
    });

    it('block refuses with the kinds, lines and where, never the secret', () => {
      const error = refusal(() => guardText(text, 'block', 'content'));
      assert.match(error.message, /2 secrets were found in content: github-token on line 2, password on line 3/);
      assert.ok(!error.message.includes(FAKE.githubClassic) && !error.message.includes(FAKE.password));
      const one = refusal(() => guardText(`key ${FAKE.awsAccessKey}`, 'block'));
      assert.match(one.message, /A secret was found in the text: aws-access-key on line 1\. Remove it/);
    });

    it('block and redact pass a clean text through as it is', () => {
      assert.deepEqual(guardText('Deploys happen on Fridays.', 'block'), {
        text: 'Deploys happen on Fridays.',
        findings: [],
      });
      assert.deepEqual(guardText('', 'redact'), { text: '', findings: [] });
    });

    it('allow keeps the text unchanged and does not scan', () => {
      assert.deepEqual(guardText(text, 'allow'), { text, findings: [] });
    });

    it('refuses an unknown policy', () => {
      for (const policy of ['warn', undefined, 1]) {
        assert.throws(
          () => guardText(text, policy as never),
          (error: unknown) => isMemoryError(error, 'INVALID_INPUT') && /redact, block, allow/.test(error.message),
        );
      }
    });
  });

  describe('guardFields', () => {
    const body = () => ({
      content: `Release steps.\nThen publish with ${FAKE.npm}.`,
      title: 'Releasing',
      tags: ['release', FAKE.githubClassic, 'npm'],
      metadata: {
        apiKey: FAKE.apiKey,
        owner: 'alice',
        db: { url: `postgres://${FAKE.databaseAuth}@db.internal:5432/orders`, port: 5432 },
        hosts: [{ name: 'a', token: FAKE.token }],
        when: new Date(0),
      },
      version: 3,
    });

    it('redacts every string: fields, tags, nested metadata (a sensitive key judges its value), by path', () => {
      const input = body();
      const before = structuredClone(input);
      const guarded = guardFields(input, 'redact');
      assert.deepEqual(input, before, 'the input is not modified');
      assert.deepEqual(guarded.body, {
        ...before,
        content: 'Release steps.\nThen publish with [redacted: npm-token].',
        tags: ['release', '[redacted: github-token]', 'npm'],
        metadata: {
          ...before.metadata,
          apiKey: '[redacted: api-key]',
          db: { url: 'postgres://[redacted: database-password]@db.internal:5432/orders', port: 5432 },
          hosts: [{ name: 'a', token: '[redacted: token]' }],
        },
      });
      assert.equal(guarded.body.metadata.when, input.metadata.when, 'what is not a plain object is kept as is');
      assert.equal(guarded.body.metadata.owner, input.metadata.owner);
      assert.deepEqual(
        guarded.findings.map(({ field, kind, line }) => ({ field, kind, line })),
        [
          { field: 'content', kind: 'npm-token', line: 2 },
          { field: 'tags[1]', kind: 'github-token', line: 1 },
          { field: 'metadata.apiKey', kind: 'api-key', line: 1 },
          { field: 'metadata.db.url', kind: 'database-password', line: 1 },
          { field: 'metadata.hosts[0].token', kind: 'token', line: 1 },
        ],
      );
      const finding: SecretFinding = guarded.findings[0]!;
      assert.equal(input.content.slice(finding.start, finding.end), FAKE.npm);
    });

    it('gives a clean body back as it is', () => {
      const clean = { content: 'Deploys happen on Fridays.', tags: ['deploy'], metadata: { owner: 'alice' } };
      const guarded = guardFields(clean, 'redact');
      assert.equal(guarded.body, clean);
      assert.deepEqual(guarded.findings, []);
    });

    it('block refuses naming each field, kind and line, never the secret', () => {
      const error = refusal(() => guardFields(body(), 'block'));
      assert.match(
        error.message,
        /^5 secrets were found: npm-token in content on line 2, github-token in tags\[1\] on line 1, api-key in metadata\.apiKey on line 1, /,
      );
      for (const secret of [FAKE.npm, FAKE.githubClassic, FAKE.apiKey, FAKE.token]) {
        assert.ok(!error.message.includes(secret));
      }
    });

    it('allow returns the body untouched', () => {
      const input = body();
      assert.deepEqual(guardFields(input, 'allow'), { body: input, findings: [] });
    });
  });
});

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

describe('secret guard: Google API keys and header tokens', () => {
  const googleKey = ['AI', 'za', fakeChars(`${ALPHANUMERIC}_-`, 35, 41)].join('');
  const bearer = fakeChars(ALPHANUMERIC, 40, 42);

  it('finds a Google API key and the token of an Authorization or X-Api-Key header', () => {
    const text = [
      `maps: ${googleKey}`,
      `curl -H "Authorization: Bearer ${bearer}" https://api.example.com`,
      `x-api-key: ${bearer}`,
    ].join('\n');
    assert.deepEqual(
      scanSecrets(text).map((finding) => [finding.kind, finding.line]),
      [
        ['google-api-key', 1],
        ['bearer-token', 2],
        ['bearer-token', 3],
      ],
    );
    assert.equal(
      guardText(`Authorization: Bearer ${bearer}`, 'redact').text,
      'Authorization: Bearer [redacted: bearer-token]',
    );
  });

  it('leaves placeholders in documentation alone', () => {
    for (const text of [
      'curl -H "Authorization: Bearer $GITHUB_TOKEN_FOR_THE_CI_RUNNER"',
      'Authorization: Bearer <your-access-token-goes-here>',
      'Send `Authorization: Bearer xxxxxxxxxxxxxxxxxxxxxxxx` with each call',
      'x-api-key: YOUR_API_KEY_FROM_THE_DASHBOARD',
    ]) {
      assert.deepEqual(scanSecrets(text), [], text);
    }
  });
});
