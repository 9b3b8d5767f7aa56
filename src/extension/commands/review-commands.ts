import * as vscode from 'vscode';

import { isMemoryError } from '../../core/errors';
import type { WriterKind } from '../../core/provenance';
import type { RevertFilter, RevertItem, RevertReport } from '../../core/trust/revert';
import type { PendingItem, ReviewOutcome } from '../../core/trust/review';
import { parseEntityUri } from '../documents/uris';
import type { Services } from '../services';
import type { RemoteMemory } from '../store/client';
import { COLLECTION_OF } from '../store/collections';
import { pendingItems } from '../trust/pending';
import { confirm, openEntity, reporting } from '../ui';
import type { CollectionNode } from '../views/collections-tree';
import type { CommitNode } from '../views/history-tree';
import { entityLabel, shortTime, TYPE_INFO, writerLabel } from '../views/labels';
import { COMMANDS } from './ids';

/** What Approve and Reject act on: a Pending Review row, a document (or its id), or nothing (the active editor). */
type PendingArgument = CollectionNode | vscode.Uri | string | undefined;

/** Most items a confirmation lists before "…and N more". */
const LISTED = 10;

/** A write waiting for review and the commit that queued it, read from its history (the store's `get` leaves those out). */
async function pendingVersion(memory: RemoteMemory, id: string): Promise<Pending | undefined> {
  const { commits, latest } = await memory.worker.historyOutline(id);
  const head = commits[0]?.commit;
  return head?.review === 'pending' && latest ? { entity: latest, commit: head } : undefined;
}

type Pending = Pick<PendingItem, 'entity' | 'commit'>;

/** The write a review command is about: its row, its document, its id, or the document in the active editor. */
async function resolvePending(services: Services, argument: PendingArgument): Promise<Pending | undefined> {
  if (argument && typeof argument === 'object' && 'kind' in argument && argument.kind === 'pendingItem') {
    return argument;
  }
  const uri = argument instanceof vscode.Uri ? argument : vscode.window.activeTextEditor?.document.uri;
  const id = typeof argument === 'string' ? argument : uri && parseEntityUri(uri)?.id;
  if (!id) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Open a write waiting for review, or select one under Pending Review in the Memory view, first.'),
    );
    return undefined;
  }
  const pending = await pendingVersion(await services.memory(), id);
  if (!pending) void vscode.window.showInformationMessage(vscode.l10n.t('{0} is not waiting for review.', id));
  return pending;
}

/** The live document of an entity that is open with unsaved edits, if any. */
function editedDocument(id: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((document) => {
    const location = parseEntityUri(document.uri);
    return document.isDirty && location?.id === id && !location.commit;
  });
}

/** Says what an approval did, with a way to undo a correction it made. */
function announceApproval(services: Services, { entity, commit }: Pending, outcome: ReviewOutcome | undefined): void {
  const label = entityLabel(entity);
  if (outcome?.outcome === 'applied') {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Approved: “{0}” is applied to {1}.', label, outcome.entityId),
    );
    return;
  }
  const corrected = commit.supersedes;
  if (!corrected) {
    const open = vscode.l10n.t('Open');
    void vscode.window
      .showInformationMessage(vscode.l10n.t('Approved “{0}”.', label), open)
      .then(async (choice) => {
        if (choice === open) await openEntity(entity);
      })
      .then(undefined, (error: unknown) => services.reportError(vscode.l10n.t('Opening'), error));
    return;
  }
  const reinstate = vscode.l10n.t('Reinstate {0}', corrected);
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t('Approved “{0}”. It corrects {1}, which is retired now.', label, corrected),
      reinstate,
    )
    .then(async (choice) => {
      if (choice === reinstate) await vscode.commands.executeCommand(COMMANDS.reinstate, corrected);
    })
    .then(undefined, (error: unknown) => services.reportError(vscode.l10n.t('Reinstating'), error));
}

async function approve(services: Services, argument: PendingArgument): Promise<ReviewOutcome[] | undefined> {
  const pending = await resolvePending(services, argument);
  if (!pending) return undefined;
  // Edited in its document and not saved: saving it approves it with the edits (see memory-fs.ts).
  const edited = editedDocument(pending.entity.id);
  if (edited) {
    if (await edited.save()) announceApproval(services, pending, undefined);
    return undefined;
  }
  const outcomes = await (await services.memory()).review.approve([pending.entity.id]);
  announceApproval(services, pending, outcomes[0]);
  return outcomes;
}

async function reject(services: Services, argument: PendingArgument): Promise<ReviewOutcome[] | undefined> {
  const pending = await resolvePending(services, argument);
  if (!pending) return undefined;
  const { entity } = pending;
  const outcomes = await (await services.memory()).review.reject([entity.id]);
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Rejected “{0}”; its history keeps it.', entityLabel(entity)),
  );
  return outcomes;
}

function pendingLine(item: PendingItem): string {
  return `• “${entityLabel(item.entity)}” ${writerLabel(item.commit.by, item.commit.author)}`;
}

function andMore(total: number): string[] {
  return total > LISTED ? [vscode.l10n.t('…and {0} more', total - LISTED)] : [];
}

/** Approves or rejects every write waiting for review in the views' scopes, after a confirmation naming how many. */
async function reviewAll(
  services: Services,
  action: 'approve' | 'reject',
  options: { confirmed?: boolean },
): Promise<ReviewOutcome[]> {
  const memory = await services.memory();
  const items = await pendingItems(memory, services.scope().agentId);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Nothing waits for review.'));
    return [];
  }
  const n = items.length;
  const question =
    action === 'approve'
      ? n === 1
        ? vscode.l10n.t('Approve the write waiting for review?')
        : vscode.l10n.t('Approve all {0} writes waiting for review?', n)
      : n === 1
        ? vscode.l10n.t('Reject the write waiting for review?')
        : vscode.l10n.t('Reject all {0} writes waiting for review?', n);
  const consequence =
    action === 'approve'
      ? vscode.l10n.t('They become part of search, recall and what agents read.')
      : vscode.l10n.t('They are deleted; their history keeps them.');
  const detail = [...items.slice(0, LISTED).map(pendingLine), ...andMore(n), '', consequence].join('\n');
  const ok =
    options.confirmed ||
    (await confirm(
      question,
      action === 'approve' ? vscode.l10n.t('Approve All') : vscode.l10n.t('Reject All'),
      detail,
    ));
  if (!ok) return [];
  const ids = items.map((item) => item.entity.id);
  const outcomes = action === 'approve' ? await memory.review.approve(ids) : await memory.review.reject(ids);
  void vscode.window.showInformationMessage(
    action === 'approve'
      ? vscode.l10n.t('Approved {0} writes.', outcomes.length)
      : vscode.l10n.t('Rejected {0} writes; their history keeps them.', outcomes.length),
  );
  return outcomes;
}

/** Each writer as the revert picker shows it, agents first. */
function writers(): { writer: WriterKind; label: string; detail: string }[] {
  return [
    { writer: 'copilot', label: 'Copilot', detail: vscode.l10n.t('What Copilot wrote through the memory tools') },
    {
      writer: 'mcp',
      label: vscode.l10n.t('MCP clients'),
      detail: vscode.l10n.t('What Claude Code, Cursor or another MCP client wrote through the MCP server'),
    },
    {
      writer: 'mining',
      label: vscode.l10n.t('Mining'),
      detail: vscode.l10n.t('What /mine and automatic mining saved'),
    },
    {
      writer: 'consolidation',
      label: vscode.l10n.t('Consolidation'),
      detail: vscode.l10n.t('What consolidation plans merged and deleted'),
    },
    {
      writer: 'cli',
      label: vscode.l10n.t('Command line'),
      detail: vscode.l10n.t('What workspace-memory commands wrote'),
    },
    { writer: 'import', label: vscode.l10n.t('Imports'), detail: vscode.l10n.t('What imports brought in') },
    {
      writer: 'docsync',
      label: vscode.l10n.t('Document sync'),
      detail: vscode.l10n.t('The chunks document sync made of workspace files'),
    },
    {
      writer: 'user',
      label: vscode.l10n.t('People'),
      detail: vscode.l10n.t('What people wrote in VS Code and @memory'),
    },
  ];
}

/** The writers whose records carry a name worth narrowing by: an MCP client's, a person's. */
const NAMED: readonly WriterKind[] = ['mcp', 'user'];

/** Answers for Revert an Agent's Writes' prompts, for other extensions and tests; `dryRun` only lists. */
export interface RevertOptions extends Partial<RevertFilter> {
  dryRun?: boolean;
  /** Skip the modal confirmation (the caller confirmed already). */
  confirmed?: boolean;
}

/** The filter from the prompts: whose writes, by what name, since when. Undefined when a prompt was dismissed. */
async function askFilter(): Promise<RevertFilter | undefined> {
  const picked = await vscode.window.showQuickPick(writers(), {
    title: vscode.l10n.t("Revert an Agent's Writes: whose?"),
    placeHolder: vscode.l10n.t('What it created is deleted; what it changed gets back its earlier version'),
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  let name: string | undefined;
  if (NAMED.includes(picked.writer)) {
    name = await vscode.window.showInputBox({
      title: vscode.l10n.t("Revert an Agent's Writes: which of the {0}?", picked.label),
      prompt: vscode.l10n.t('The name the History view shows after "by", without a version; empty for every one'),
      ignoreFocusOut: true,
    });
    if (name === undefined) return undefined;
  }
  const now = Date.now();
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  const ranges: (vscode.QuickPickItem & { since: Date | undefined })[] = [
    { label: vscode.l10n.t('Last hour'), since: new Date(now - 3600e3) },
    { label: vscode.l10n.t('Today'), since: today },
    { label: vscode.l10n.t('Last 7 days'), since: new Date(now - 7 * 24 * 3600e3) },
    { label: vscode.l10n.t('All time'), since: undefined },
  ];
  const range = await vscode.window.showQuickPick(ranges, {
    title: vscode.l10n.t("Revert an Agent's Writes: written since when?"),
  });
  if (!range) return undefined;
  return {
    by: picked.writer,
    ...(name?.trim() ? { name: name.trim() } : {}),
    ...(range.since ? { since: range.since.toISOString() } : {}),
  };
}

/** "by MCP clients named Claude Desktop since 3/14/26, 9:00 AM" */
function describeFilter(filter: RevertFilter): string {
  const writer = writers().find((w) => w.writer === filter.by)?.label ?? filter.by;
  const parts = [vscode.l10n.t('by {0}', writer)];
  if (filter.name) parts.push(vscode.l10n.t('named {0}', filter.name));
  if (filter.conversation) parts.push(vscode.l10n.t('in conversation {0}', filter.conversation));
  if (filter.since) {
    parts.push(vscode.l10n.t('since {0}', shortTime(filter.since)));
  }
  return parts.join(' ');
}

function revertLine(item: RevertItem): string {
  const what = `${TYPE_INFO[item.type].singular} “${item.preview || item.id}”`;
  const line = item.action === 'delete' ? vscode.l10n.t('• delete {0}', what) : vscode.l10n.t('• restore {0}', what);
  return item.laterByOthers ? `${line} ${vscode.l10n.t('(changed by others since: undone too)')}` : line;
}

/**
 * Undoes everything one writer wrote: a dry run first, then one
 * confirmation listing what it deletes and restores. NOTHING_TO_REVERT is
 * an answer, not a failure.
 */
async function revertWrites(services: Services, options: RevertOptions): Promise<RevertReport | undefined> {
  const { dryRun, confirmed, ...given } = options;
  const filter = given.by ? (given as RevertFilter) : await askFilter();
  if (!filter) return undefined;
  const memory = await services.memory();
  let plan: RevertReport;
  try {
    plan = await memory.revert(filter, { dryRun: true });
  } catch (error) {
    if (!isMemoryError(error, 'NOTHING_TO_REVERT')) throw error;
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Nothing to revert: no writes {0} are in effect.', describeFilter(filter)),
    );
    return undefined;
  }
  if (dryRun) return plan;
  const n = plan.items.length;
  const ok =
    confirmed ||
    (await confirm(
      n === 1
        ? vscode.l10n.t('Revert 1 entity written {0}?', describeFilter(filter))
        : vscode.l10n.t('Revert {0} entities written {1}?', n, describeFilter(filter)),
      vscode.l10n.t('Revert'),
      [
        ...plan.items.slice(0, LISTED).map(revertLine),
        ...andMore(n),
        '',
        vscode.l10n.t('The revert is new commits: the history keeps every version.'),
      ].join('\n'),
    ));
  if (!ok) return undefined;
  const report = await memory.revert(filter);
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Reverted {0} entities written {1}.', report.items.length, describeFilter(filter)),
  );
  return report;
}

/** What Reinstate acts on: a row under Superseded, a commit in History, or an id (a message's button). */
type ReinstateArgument = CollectionNode | CommitNode | string | undefined;

/** The id of the retired memory an argument names: a row's, a "superseded" commit's, or the one a correction corrects. */
function retiredId(argument: ReinstateArgument): string | undefined {
  if (typeof argument === 'string') return argument;
  if (argument?.kind === 'supersededItem') return argument.entity.id;
  if (argument?.kind !== 'commit') return undefined;
  return argument.commit.op === 'supersede' ? argument.entityId : argument.commit.supersedes;
}

/** Puts a memory retired by a correction back among the live ones. */
async function reinstate(services: Services, argument: ReinstateArgument) {
  const id = retiredId(argument);
  if (!id) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Pick a memory under Superseded in the Memory view, or in the History view the commit that retired it or the correction that did.',
      ),
    );
    return undefined;
  }
  const memory = await services.memory();
  const { latest } = await memory.worker.historyOutline(id);
  if (!latest) throw new Error(vscode.l10n.t('{0} is not in this store.', id));
  const commit = await memory[COLLECTION_OF[latest.type]].reinstate(id);
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Reinstated “{0}”: search and recall find it again.', entityLabel(latest)),
  );
  return commit;
}

/** Whether the active editor shows a write waiting for review: its title shows Approve and Reject then. */
async function updatePendingDocument(services: Services): Promise<void> {
  const uri = vscode.window.activeTextEditor?.document.uri;
  const location = uri && parseEntityUri(uri);
  const pending =
    location !== undefined &&
    !location.commit &&
    (await services.use((memory) => pendingVersion(memory, location.id)).catch(() => undefined)) !== undefined;
  await vscode.commands.executeCommand('setContext', 'workspaceMemory.pendingDocument', pending);
}

/** Approve All and Reject All take their options first, or after the Pending Review row their button passes. */
type ReviewAllArguments = [first?: CollectionNode | { confirmed?: boolean }, second?: { confirmed?: boolean }];

function reviewAllOptions([first, second]: ReviewAllArguments): { confirmed?: boolean } {
  return (first && !('kind' in first) ? first : second) ?? {};
}

export function registerReviewCommands(context: vscode.ExtensionContext, services: Services): void {
  const run = <A extends unknown[]>(action: string, fn: (...args: A) => Promise<unknown>) =>
    reporting(services, action, fn);
  const pendingDocument = () => void updatePendingDocument(services);
  pendingDocument();
  context.subscriptions.push(
    vscode.commands.registerCommand(
      COMMANDS.approve,
      run(vscode.l10n.t('Approving'), (argument: PendingArgument) => approve(services, argument)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.reject,
      run(vscode.l10n.t('Rejecting'), (argument: PendingArgument) => reject(services, argument)),
    ),
    vscode.commands.registerCommand(
      COMMANDS.approveAll,
      run(vscode.l10n.t('Approving all'), (...args: ReviewAllArguments) =>
        reviewAll(services, 'approve', reviewAllOptions(args)),
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.rejectAll,
      run(vscode.l10n.t('Rejecting all'), (...args: ReviewAllArguments) =>
        reviewAll(services, 'reject', reviewAllOptions(args)),
      ),
    ),
    vscode.commands.registerCommand(
      COMMANDS.revertWrites,
      run(vscode.l10n.t('Reverting writes'), (options?: RevertOptions) => revertWrites(services, options ?? {})),
    ),
    vscode.commands.registerCommand(
      COMMANDS.reinstate,
      run(vscode.l10n.t('Reinstating'), (argument?: ReinstateArgument) => reinstate(services, argument)),
    ),
    vscode.window.onDidChangeActiveTextEditor(pendingDocument),
    services.onDidChangeStore(pendingDocument),
  );
}
