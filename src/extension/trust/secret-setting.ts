/**
 * `workspaceMemory.secrets` as the store's secret policy. No `vscode`
 * import, so the mapping is unit-tested under plain Node.
 */
import { SECRET_POLICIES, type SecretPolicy } from '../../core/secrets/types';

/**
 * The policy the store opens with. A value the store would refuse (a typo in
 * settings.json) falls back to the default, `redact`, and is named in
 * `ignored`: a bad setting never keeps the store from opening, nor lets a
 * secret in.
 */
export function secretPolicyOf(value: unknown): { policy: SecretPolicy; ignored?: string } {
  if (value === undefined || value === null) return { policy: 'redact' };
  if ((SECRET_POLICIES as readonly unknown[]).includes(value)) return { policy: value as SecretPolicy };
  return { policy: 'redact', ignored: JSON.stringify(value) };
}
