import { MemoryError } from '../errors';
import { asWriter, currentProvenance, withProvenance } from '../provenance';
import { type ImportTarget, type PlannedItem, sameItem } from './plan';
import type { ImportFormat, ImportProgress } from './types';

/**
 * Writes the planned creates and updates through the store's own import
 * (Memory.import: validated, secret-guarded, ids kept, one transaction), one
 * batch per source file so that each commit's provenance names its file and
 * format: "by import · import --from claude CLAUDE.md". An item holding a
 * secret is written alone, so that the store's policy refusing it
 * (SECRET_DETECTED under `block`) refuses that item only. A batch the store
 * refuses is reported item by item; the other files are still written.
 */
export async function writePlanned(
  target: ImportTarget,
  planned: readonly PlannedItem[],
  format: ImportFormat,
  onProgress?: (progress: ImportProgress) => void,
): Promise<void> {
  const byFile = new Map<string, PlannedItem[]>();
  for (const plan of planned) {
    if (plan.action !== 'create' && plan.action !== 'update') continue;
    const batch = byFile.get(plan.item.path);
    if (batch) batch.push(plan);
    else byFile.set(plan.item.path, [plan]);
  }
  const total = [...byFile.values()].reduce((sum, batch) => sum + batch.length, 0);
  let done = 0;
  for (const [file, batch] of byFile) {
    onProgress?.({ phase: 'writing', done, total });
    const tool = `import --from ${format} ${file}`;
    await writeBatch(
      target,
      batch.filter((plan) => !plan.secrets),
      tool,
    );
    for (const plan of batch.filter((candidate) => candidate.secrets)) await writeGuarded(target, plan, tool);
    done += batch.length;
  }
  onProgress?.({ phase: 'writing', done, total });
}

/**
 * Runs `work` as the import writing, naming the format and file as its tool:
 * like every writer started by a shell, it keeps the shell's model and
 * conversation, not its person or confirmation (see asWriter).
 */
export function asImport<T>(tool: string, work: () => T): T {
  return withProvenance({ ...(currentProvenance() ?? { kind: 'import' }), tool }, () => asWriter('import', work));
}

async function writeBatch(target: ImportTarget, batch: readonly PlannedItem[], tool: string): Promise<number> {
  if (batch.length === 0) return 0;
  const memories: Record<string, unknown>[] = [];
  const skills: Record<string, unknown>[] = [];
  for (const plan of batch) {
    const { agentId, userId, input } = plan.write!;
    const entity = {
      id: plan.id,
      type: plan.item.type,
      agentId,
      ...(userId === undefined ? {} : { userId }),
      ...input,
    };
    (plan.item.type === 'memory' ? memories : skills).push(entity);
  }
  try {
    const report = await asImport(tool, () =>
      target.import({ format: 'workspace-memory', version: 1, entities: { memories, skills } }),
    );
    return report.skipped;
  } catch (error) {
    if (!(error instanceof MemoryError)) throw error;
    for (const plan of batch) Object.assign(plan, { action: 'error', reason: error.message, code: error.code });
    return 0;
  }
}

/** One item holding a secret: refused, redacted or kept as the store's policy says, and reported so. */
async function writeGuarded(target: ImportTarget, plan: PlannedItem, tool: string): Promise<void> {
  const skipped = await writeBatch(target, [plan], tool);
  if (plan.action === 'error') return;
  if (skipped === 1) {
    Object.assign(plan, { action: 'unchanged', reason: `stored already, its secrets redacted (${plan.secrets})` });
    return;
  }
  const stored = await target.get(plan.id);
  const redacted = stored !== null && !sameItem(stored, plan.write!.input);
  plan.reason = redacted
    ? `secrets redacted: ${plan.secrets}`
    : `holds what looks like a secret (${plan.secrets}), kept as the store's secret policy allows`;
}
