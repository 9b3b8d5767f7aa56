import { generateKeyPairSync } from 'node:crypto';

import { random } from './helpers';

/**
 * Realistic fake credentials, one of each kind the secret scanner knows,
 * built at run time from a seeded generator and split prefixes, so no
 * credential appears literally in the source (where a push protection
 * scanner would stop it) and a failure replays the same values.
 */

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const BASE64 = `${ALNUM}+/`;
const HEX = '0123456789abcdef';

export function fakeChars(alphabet: string, length: number, seed: number): string {
  const next = random(seed);
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

/** A 1Password service account token's body: base64 JSON, whose closing brace ends it in `fQ==`. */
function onePasswordBody(): string {
  const account = { email: 'svc@1passwordserviceaccounts.lcl', secretKey: fakeChars(ALNUM, 40, 47), pad: '' };
  while (JSON.stringify(account).length % 3 !== 1) account.pad += 'x';
  return Buffer.from(JSON.stringify(account)).toString('base64');
}

/** A PEM block as `openssl` writes one: 64 base64 characters a line. */
function pem(label: string, body: string): string {
  const lines = body.match(/.{1,64}/g)!.join('\n');
  return `-----BEGIN ${label}-----\n${lines}\n-----END ${label}-----`;
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

/** Each value is the secret itself, as redaction should cut it out. */
export const FAKE = {
  awsAccessKey: 'AK' + 'IA' + fakeChars(UPPER + DIGITS, 16, 1),
  // secretlint's pattern wants a word boundary after the key, so it misses keys that end in + or /.
  awsSecretKey: fakeChars(BASE64, 39, 2) + fakeChars(ALNUM, 1, 2),
  githubClassic: 'gh' + 'p_' + fakeChars(ALNUM, 36, 3),
  githubFineGrained: 'github' + '_pat_' + fakeChars(ALNUM, 22, 4) + '_' + fakeChars(ALNUM, 59, 5),
  slackBot: 'xo' + 'xb-' + fakeChars(DIGITS, 12, 6) + '-' + fakeChars(DIGITS, 13, 7) + '-' + fakeChars(ALNUM, 24, 8),
  slackWebhook:
    'https://hooks.' +
    'slack.com/services/T' +
    fakeChars(UPPER + DIGITS, 8, 9) +
    '/B' +
    fakeChars(UPPER + DIGITS, 10, 10) +
    '/' +
    fakeChars(ALNUM, 24, 11),
  npm: 'np' + 'm_' + fakeChars(ALNUM, 36, 12),
  openai: 'sk-' + 'proj-' + fakeChars(ALNUM, 74, 13) + 'T3Blbk' + 'FJ' + fakeChars(ALNUM, 74, 14),
  anthropic: 'sk-' + 'ant-api03-' + fakeChars(ALNUM + '-_', 93, 15) + 'AA',
  stripe: 'sk' + '_live_' + fakeChars(ALNUM, 24, 16),
  gitlab: 'gl' + 'pat-' + fakeChars(ALNUM, 20, 17),
  huggingface: 'h' + 'f_' + fakeChars(UPPER + LOWER, 34, 18),
  sendgrid: 'S' + 'G.' + fakeChars(ALNUM, 22, 19) + '.' + fakeChars(ALNUM, 43, 20),
  shopify: 'shp' + 'at_' + fakeChars(HEX, 32, 32),
  grafana: 'gl' + 'c_eyJ' + fakeChars(ALNUM, 61, 33),
  groq: 'gs' + 'k_' + fakeChars(ALNUM, 52, 34),
  linear: 'lin' + '_api_' + fakeChars(ALNUM, 40, 35),
  notion: 'nt' + 'n_' + fakeChars(DIGITS, 11, 36) + fakeChars(ALNUM, 35, 37),
  onePassword: 'op' + 's_' + onePasswordBody(),
  vault: 'hv' + 's.' + fakeChars(ALNUM + '_-', 95, 38),
  vercel: 'vc' + 'p_' + fakeChars(ALNUM, 24, 39),
  databricks: 'da' + 'pi' + fakeChars(HEX, 32, 40),
  docker: 'dckr' + '_pat_' + fakeChars(ALNUM + '_-', 27, 41),
  figma: 'fig' + 'd_' + fakeChars(ALNUM + '_-', 40, 42),
  cloudflare: 'cf' + 'ut_' + fakeChars(ALNUM, 40, 43) + fakeChars(HEX, 8, 44),
  tailscale: 'tskey' + '-auth-' + fakeChars(ALNUM, 12, 45) + '-' + fakeChars(ALNUM, 30, 46),
  rsaPrivateKey: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().trim(),
  ecPrivateKey: ec.privateKey.export({ type: 'sec1', format: 'pem' }).toString().trim(),
  encryptedPrivateKey: ec.privateKey
    .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' })
    .toString()
    .trim(),
  opensshPrivateKey: pem('OPENSSH PRIVATE KEY', 'b3BlbnNzaC1rZXktdjE' + fakeChars(BASE64, 380, 21)),
  /** The `user:password` of a URL. */
  basicAuth: 'deploy:' + fakeChars(ALNUM, 18, 22),
  databaseAuth: 'orders_app:' + fakeChars(ALNUM, 20, 23),
  password: fakeChars(ALNUM, 7, 24) + '#' + fakeChars(ALNUM, 6, 25),
  apiKey: fakeChars(LOWER + DIGITS, 32, 26),
  token: fakeChars(ALNUM, 28, 27),
  /** As Azure issues them: three characters, a digit, a capital, a tilde, then 34 more. */
  clientSecret: fakeChars(ALNUM, 3, 28) + '8Q~' + fakeChars(ALNUM + '~._-', 34, 31),
};

/** A GCP service account's key file, as the console downloads it. */
export function gcpServiceAccountJson(): string {
  return JSON.stringify(
    {
      type: 'service_account',
      project_id: 'demo-project-4711',
      private_key_id: fakeChars('0123456789abcdef', 40, 29),
      private_key: `${FAKE.rsaPrivateKey}\n`,
      client_email: 'deployer@demo-project-4711.iam.gserviceaccount.com',
      client_id: fakeChars(DIGITS, 21, 30),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: 'https://oauth2.googleapis.com/token',
    },
    null,
    2,
  );
}
