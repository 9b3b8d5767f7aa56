import { scanSecrets } from './scan';
import type { SecretFinding, SecretPolicy } from './types';

/**
 * Which files document sync leaves out for holding secrets. By name, always,
 * whatever the policy: environment files, keys and certificates are
 * credentials by purpose, and nothing in them is documentation. By content,
 * under the policy: with `block` a document holding any secret is skipped
 * (the store would refuse its chunks); with `redact` only one that is mostly
 * secret (a private key saved as .txt), since the store's write guard
 * redacts the others chunk by chunk; with `allow`, none.
 */

/** Extensions of private keys, certificates and key stores. */
const KEY_EXTENSIONS: ReadonlySet<string> = new Set(['.pem', '.key', '.p12', '.pfx']);
/** SSH's private (and public) key files: id_rsa, id_rsa.pub, id_ed25519... */
const SSH_KEY = /^id_(?:rsa|dsa|ecdsa|ed25519)/;
/** Under `redact`, a document is skipped when secrets make up at least this share of its non-blank characters. */
const MOSTLY = 0.5;
/** How many findings a reason names. */
const NAMED = 3;

/** Why a file named `name` (its base name) is never synced, or undefined. */
export function secretFileReason(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower.startsWith('.env')) return 'secret file: environment variables (.env*)';
  if (SSH_KEY.test(lower)) return 'secret file: SSH key (id_*)';
  const dot = lower.lastIndexOf('.');
  const extension = dot > 0 ? lower.slice(dot) : '';
  return KEY_EXTENSIONS.has(extension) ? `secret file: key or certificate (*${extension})` : undefined;
}

/** Why a document whose text is `text` is not synced under `policy`, or undefined. */
export function secretTextReason(text: string, policy: SecretPolicy): string | undefined {
  if (policy === 'allow') return undefined;
  // Only a private key makes a document mostly secret; looking for one is far cheaper than a scan.
  if (policy === 'redact' && !text.includes('PRIVATE KEY')) return undefined;
  const findings = scanSecrets(text);
  if (findings.length === 0) return undefined;
  if (policy === 'block') return `holds a secret: ${describe(findings)}`;
  return secretShare(text, findings) >= MOSTLY ? `secret file: mostly a secret (${describe(findings)})` : undefined;
}

/** The share of the text's non-blank characters that lie in a finding. */
function secretShare(text: string, findings: readonly SecretFinding[]): number {
  const blank = (from: number, to: number): number => (text.slice(from, to).match(/\s/g) ?? []).length;
  const total = text.length - blank(0, text.length);
  const secret = findings.reduce(
    (sum, finding) => sum + finding.end - finding.start - blank(finding.start, finding.end),
    0,
  );
  return total === 0 ? 0 : secret / total;
}

/** 'github-token on line 3, password on line 7 and 2 more'. */
function describe(findings: readonly SecretFinding[]): string {
  const named = findings.slice(0, NAMED).map((finding) => `${finding.kind} on line ${finding.line}`);
  const more = findings.length - named.length;
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
}
