import * as vscode from 'vscode';

import type { SecretHolder } from '../../core/trust/secret-audit';
import type { Services } from '../services';
import { confirm, reporting } from '../ui';
import { COMMANDS } from './ids';

/** Most entities a message lists before "…and N more". */
const LISTED = 10;

export type SecretsAction = 'redact' | 'purge';

function holderLine(holder: SecretHolder): string {
  const now = holder.current.map((finding) =>
    vscode.l10n.t('{0} in {1}, line {2}', finding.kind, finding.field, finding.line),
  );
  const older = holder.olderVersions ? [vscode.l10n.t('{0} older versions', holder.olderVersions)] : [];
  return `• ${holder.id}: ${[...now, ...older].join('; ')}`;
}

/**
 * Memory: Find Secrets in the Store. Scans every version of every entity,
 * lists what holds a secret, and offers to redact the current versions (new
 * commits) or also purge the older ones (rewrites history, after a second
 * confirmation). `action` answers the first question for tests and scripts.
 */
async function findSecrets(services: Services, action?: SecretsAction): Promise<SecretHolder[]> {
  const memory = await services.memory();
  const holders = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Looking for secrets in every version…') },
    () => memory.secretAudit.scan(),
  );
  if (holders.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No secrets found in the store, history included.'));
    return holders;
  }
  const listed = holders.slice(0, LISTED).map(holderLine);
  if (holders.length > LISTED) listed.push(vscode.l10n.t('…and {0} more', holders.length - LISTED));
  const redact = vscode.l10n.t('Redact Current Versions');
  const purge = vscode.l10n.t('Redact and Purge History');
  const chosen =
    action === 'redact'
      ? redact
      : action === 'purge'
        ? purge
        : await vscode.window.showWarningMessage(
            vscode.l10n.t('{0} entities hold secrets.', holders.length),
            { modal: true, detail: listed.join('\n') },
            redact,
            purge,
          );
  if (chosen === redact) {
    const commits = await memory.secretAudit.redact(holders.filter((holder) => holder.current.length).map((h) => h.id));
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Redacted {0} entities as new versions. Their older versions still hold the secrets: Redact and Purge History rewrites them.',
        commits.length,
      ),
    );
  } else if (chosen === purge) {
    const sure =
      action === 'purge' ||
      (await confirm(
        vscode.l10n.t('Rewrite the history of {0} entities?', holders.length),
        vscode.l10n.t('Purge'),
        vscode.l10n.t(
          'Every version holding a secret is rewritten with it redacted, and the commits re-hashed: the one change to history Workspace Memory makes. Snapshots are copies and keep what they hold.',
        ),
      ));
    if (!sure) return holders;
    const report = await memory.secretAudit.purge(holders.map((holder) => holder.id));
    const snapshots = (await memory.listSnapshots()).length;
    void vscode.window.showInformationMessage(
      snapshots
        ? vscode.l10n.t(
            'Purged {0} versions of {1} entities. {2} snapshots taken before may still hold the secrets: delete those you do not need.',
            report.versions,
            report.entities.length,
            snapshots,
          )
        : vscode.l10n.t('Purged {0} versions of {1} entities.', report.versions, report.entities.length),
    );
  }
  return holders;
}

export function registerSecretCommands(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.findSecrets,
      reporting(services, vscode.l10n.t('Looking for secrets'), (action?: SecretsAction) =>
        findSecrets(services, action),
      ),
    ),
  );
}
