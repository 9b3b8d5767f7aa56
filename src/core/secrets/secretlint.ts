import type * as Preset from '@secretlint/secretlint-rule-preset-recommend';
import type {
  SecretLintRuleContext,
  SecretLintRuleCreator,
  SecretLintRuleReportDescriptor,
  SecretLintRuleReportHandler,
  SecretLintSourceCode,
  SecretLintSourceNodeLocation,
  SecretLintSourceNodePosition,
  SecretLintSourceNodeRange,
} from '@secretlint/types';

import { lazy } from '../lazy';
import type { SecretSpan } from './types';

/**
 * The rules of secretlint's recommended preset, run synchronously over a
 * text. secretlint's own runner (`lintSource` in @secretlint/core) is async
 * and builds every rule again for each text, which the store's synchronous
 * write path cannot wait for and could not afford per memory. So this module
 * is the rules' host itself, through their published contract
 * (@secretlint/types: `create(context, options)` returns handlers, and
 * `file(source)` calls `context.report` with a range): each rule is created
 * once, and its `file` handler is called with a source for the text. Every
 * rule of the preset handles text synchronously (the GCP rule's one async
 * branch reads a .p12 file from disk, and a text is never one); a rule that
 * returned a promise would report after the scan that asked, so that is
 * refused loudly (the tests run every rule) rather than missed quietly.
 */

/** The rule that honours `secretlint-disable` comments: left out, or any text could exempt itself from the guard. */
const FILTER_COMMENTS = '@secretlint/secretlint-rule-filter-comments';

/**
 * Options per rule. The AWS rule looks for access key IDs (AKIA...) only when
 * asked: an ID alone grants nothing, but it is half of a key pair and names
 * the account, so it is not kept either.
 */
const RULE_OPTIONS: Readonly<Record<string, object>> = {
  '@secretlint/secretlint-rule-aws': { enableIDScanRule: true },
};

/** Short, readable kinds for the rules' messages; other messages of a rule get the rule's kind below. */
const MESSAGE_KINDS: Readonly<Record<string, string>> = {
  AWSAccessKeyID: 'aws-access-key',
  AWSSecretAccessKey: 'aws-secret-key',
  IncomingWebhook: 'slack-webhook',
  PackageJSON_xOauthToken: 'github-token',
};

/** AWS account numbers come with the ID scan, but they are identifiers, not credentials. */
const IGNORED_MESSAGES: ReadonlySet<string> = new Set(['AWSAccountID']);

/** By the rule's name (its id without `@secretlint/secretlint-rule-`); a rule not listed gives its own name. */
export const RULE_KINDS: Readonly<Record<string, string>> = {
  aws: 'aws-secret-key',
  gcp: 'gcp-service-account',
  privatekey: 'private-key',
  npm: 'npm-token',
  basicauth: 'basic-auth',
  slack: 'slack-token',
  sendgrid: 'sendgrid-key',
  shopify: 'shopify-token',
  stripe: 'stripe-key',
  github: 'github-token',
  gitlab: 'gitlab-token',
  grafana: 'grafana-token',
  openai: 'openai-key',
  anthropic: 'anthropic-key',
  groq: 'groq-key',
  huggingface: 'huggingface-token',
  linear: 'linear-key',
  notion: 'notion-token',
  '1password': '1password-token',
  'database-connection-string': 'database-password',
  'hashicorp-vault': 'vault-token',
  vercel: 'vercel-token',
  databricks: 'databricks-token',
  docker: 'docker-token',
  figma: 'figma-token',
  cloudflare: 'cloudflare-token',
  tailscale: 'tailscale-key',
};

/** A URL with a `user:password@` part: what the basic auth and database connection string rules look for. */
const URL_USERINFO = /:\/\/[^\s/]+@/;

/**
 * Per rule (by name), a pattern that every text the rule reports on
 * matches: a literal its own patterns require (a token's prefix, `PRIVATE
 * KEY`, a URL's `user:password@`), read from the preset's source. The rules
 * cost about 15 µs per 200 characters, one regular expression after the
 * other, and the store scans every string it writes; with these, a text runs
 * only the rules whose anchor it matches, and most texts match none, which
 * one combined expression tells in well under a microsecond. A rule without
 * an anchor always runs: a preset upgrade that adds one makes the scan
 * slower, never blind (and a test names it).
 */
export const RULE_ANCHORS: Readonly<Record<string, RegExp>> = {
  aws: /A3T|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|(?:SECRET|[Ss]ecret)_?(?:ACCESS|[Aa]ccess)_?(?:KEY|[Kk]ey)/,
  gcp: /PRIVATE KEY/,
  privatekey: /PRIVATE KEY/,
  npm: /npm_|x-oauth-basic/,
  basicauth: URL_USERINFO,
  // The webhook's pattern ignores case.
  slack: /xox[bpaor]-|xapp-|hooks\.slack\.com/i,
  sendgrid: /SG\./,
  shopify: /shp(?:pa|ca|at|ss)_/,
  stripe: /[sr]k_(?:live|test)_/,
  github: /gh[pousr]_|github_pat_/,
  gitlab: /glpat-/,
  grafana: /glc_|glsa_/,
  openai: /T3BlbkFJ/,
  anthropic: /sk-ant-api0/,
  groq: /gsk_/,
  huggingface: /hf_/,
  linear: /lin_api_/,
  notion: /ntn_/,
  '1password': /ops_ey/,
  'database-connection-string': URL_USERINFO,
  'hashicorp-vault': /hv[sbr]\./,
  vercel: /vc[piark]_/,
  databricks: /dapi/,
  docker: /dckr_pat_/,
  figma: /figd_/,
  cloudflare: /cf(?:k|ut|at)_/,
  tailscale: /tskey-/,
};

/** Kinds whose rule reports a whole URL: only its `user:password@` part is the secret. */
const URL_CREDENTIALS: ReadonlySet<string> = new Set(['basic-auth', 'database-password']);

/** How far past a report's start its value is looked for (see spanOf). */
const VALUE_SEARCH = 256;

interface HostedRule {
  id: string;
  /** Undefined: the rule runs on every text. */
  anchor: RegExp | undefined;
  handler: SecretLintRuleReportHandler;
}

interface Host {
  rules: HostedRule[];
  /** Whether a text matches any rule's anchor: case-sensitive anchors combined in one expression, the others apart. */
  gate: RegExp[];
}

/** Where the rules' reports go while a text is scanned; undefined between scans. */
let sink: { content: string; spans: SecretSpan[] } | undefined;

const host = lazy((): Host => {
  // Loaded on first use: opening a store (the worker's start-up) needs no secret scanning.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const preset = require('@secretlint/secretlint-rule-preset-recommend') as typeof Preset;
  const rules = (preset.rules as SecretLintRuleCreator<object>[])
    .filter((rule) => rule.meta.id !== FILTER_COMMENTS && rule.meta.type === 'scanner')
    .filter((rule) => rule.meta.supportedContentTypes.some((type) => type === 'text' || type === 'all'))
    .map((rule): HostedRule => {
      const name = ruleName(rule.meta.id);
      const context = contextFor(RULE_KINDS[name] ?? name);
      return {
        id: rule.meta.id,
        anchor: RULE_ANCHORS[name],
        handler: rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {}),
      };
    });
  const anchors = [...new Set(rules.map((rule) => rule.anchor).filter((anchor) => anchor !== undefined))];
  const exact = anchors.filter((anchor) => anchor.flags === '');
  const gate = [
    new RegExp(exact.map((anchor) => `(?:${anchor.source})`).join('|')),
    ...anchors.filter((anchor) => anchor.flags !== ''),
  ];
  return { rules, gate };
});

/** A rule's name: its id without `@secretlint/secretlint-rule-`. */
export function ruleName(id: string): string {
  return id.replace(/^@secretlint\/secretlint-rule-/, '');
}

function contextFor(ruleKind: string): SecretLintRuleContext {
  return {
    sharedOptions: {},
    createTranslator: (messages) => (messageId, data) => ({
      messageId: String(messageId),
      data,
      message: messages[messageId]!.en(data),
    }),
    report: (descriptor) => {
      if (sink && !IGNORED_MESSAGES.has(descriptor.message.messageId)) {
        sink.spans.push(spanOf(sink.content, descriptor, MESSAGE_KINDS[descriptor.message.messageId] ?? ruleKind));
      }
    },
    // Only the comment filter, left out above, ignores what others report.
    ignore: () => undefined,
  };
}

/** What the preset's rules find in `text`, each as the span of the secret itself. */
export function secretlintSpans(text: string): SecretSpan[] {
  const { rules, gate } = host();
  const anchored = gate.some((anchor) => anchor.test(text));
  const due = rules.filter((rule) => (rule.anchor === undefined ? true : anchored && rule.anchor.test(text)));
  if (due.length === 0) return [];
  // The GCP rule recognises a service account's key file only in a source named .json.
  const source = new TextSource(text, text.trimStart().startsWith('{') ? '.json' : '.txt');
  sink = { content: text, spans: [] };
  try {
    for (const rule of due) {
      const result = rule.handler.file?.(source);
      if (result !== undefined) {
        void result.catch(() => undefined);
        throw new Error(`The secret scanner runs rules synchronously, but ${rule.id} answered with a promise.`);
      }
    }
    return sink.spans;
  } finally {
    sink = undefined;
  }
}

/**
 * The secret within a report. Rules report where their match is, which may
 * be more than the secret (a whole URL, or a name and its value), and some
 * give the start of the whole match with the length of the captured value
 * (the AWS rule's secret access key); the value itself is in the message's
 * data, so it is looked for from the report's start.
 */
function spanOf(content: string, descriptor: SecretLintRuleReportDescriptor, kind: string): SecretSpan {
  const reported = descriptor.range[0];
  let [start, end] = descriptor.range;
  const data = descriptor.message.data as Record<string, unknown> | undefined;
  let found = '';
  for (const value of Object.values(data ?? {})) {
    if (typeof value !== 'string' || value.length <= found.length) continue;
    const at = content.indexOf(value, reported);
    if (at >= 0 && at - reported <= VALUE_SEARCH) {
      found = value;
      [start, end] = [at, at + value.length];
    }
  }
  if (URL_CREDENTIALS.has(kind)) {
    // scheme://user:password@host/...: neither part holds a slash, and the user may hold an @ (a database's may).
    const scheme = content.indexOf('://', start);
    if (scheme >= 0 && scheme < end) {
      const from = scheme + 3;
      const slash = content.indexOf('/', from);
      const at = content.lastIndexOf('@', (slash >= 0 && slash < end ? slash : end) - 1);
      if (at >= from) [start, end] = [from, at];
    }
  }
  return { kind, start, end };
}

/**
 * A text as the rules see a file: its content, an extension some rules go
 * by, and no path. The position helpers are part of the contract; no rule
 * run here uses them today.
 */
class TextSource implements SecretLintSourceCode {
  readonly hasBOM = false;
  readonly filePath = undefined;
  readonly physicalFilePath = undefined;
  readonly contentType = 'text';

  constructor(
    readonly content: string,
    readonly ext: string,
  ) {}

  getFilePath(): undefined {
    return undefined;
  }

  getPhysicalFilePath(): undefined {
    return undefined;
  }

  /** Line 1-based, column 0-based, as secretlint counts them. */
  indexToPosition(index: number): SecretLintSourceNodePosition {
    const lineStart = index > 0 ? this.content.lastIndexOf('\n', index - 1) + 1 : 0;
    let line = 1;
    for (let at = this.content.indexOf('\n'); at >= 0 && at < lineStart; at = this.content.indexOf('\n', at + 1))
      line++;
    return { line, column: index - lineStart };
  }

  positionToIndex(position: SecretLintSourceNodePosition): number {
    let lineStart = 0;
    for (let line = 1; line < position.line; line++) {
      const end = this.content.indexOf('\n', lineStart);
      if (end < 0) return this.content.length;
      lineStart = end + 1;
    }
    return Math.min(lineStart + position.column, this.content.length);
  }

  rangeToLocation(range: SecretLintSourceNodeRange): SecretLintSourceNodeLocation {
    return { start: this.indexToPosition(range[0]), end: this.indexToPosition(range[1]) };
  }

  locationToRange(location: SecretLintSourceNodeLocation): SecretLintSourceNodeRange {
    return [this.positionToIndex(location.start), this.positionToIndex(location.end)];
  }
}
