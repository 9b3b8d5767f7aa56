/** The shapes the secret guard's parts share (see guard.ts for the guard itself). */

/**
 * What the store does with a secret in a write: `redact` replaces it by
 * `[redacted: <kind>]` before anything is stored or hashed, `block` refuses
 * the write (MemoryError 'SECRET_DETECTED'), `allow` keeps it.
 */
export type SecretPolicy = 'redact' | 'block' | 'allow';

export const SECRET_POLICIES: readonly SecretPolicy[] = ['redact', 'block', 'allow'];

/** A secret's place in a text: what kind it is and its offsets, end exclusive. */
export interface SecretSpan {
  /** Short and readable: 'aws-access-key', 'github-token', 'private-key', 'slack-token', 'password'... */
  kind: string;
  start: number;
  end: number;
}

export interface SecretFinding extends SecretSpan {
  /** 1-based line of the secret's first character. */
  line: number;
}

export interface FieldFinding extends SecretFinding {
  /** Where in the body: 'content', 'tags[2]', 'metadata.db.password'. `start`, `end` and `line` are within that string. */
  field: string;
}
