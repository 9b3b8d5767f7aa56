import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { Memory } from '../memory';
import { termCounts, termSimilarity } from '../search/dedup';
import { type MemoryEntity, type SkillEntity, TEAM_AGENT_ID } from '../types';
import { teamFolderPath } from './folder';
import type { TeamFileProblem } from './format';

/*
 * `team check`: the team folder judged the way a reviewer would want before
 * it is merged, for CI and pre-commit hooks. It needs no store of the
 * user's: the folder is read into a throwaway store, which checks it with
 * the same code every write goes through.
 */

/** From this similarity two team entities are reported as saying the same thing. */
export const TEAM_DUPLICATE_SIMILARITY = 0.85;

export interface TeamCheckFinding {
  /** The file (relative to the team folder) the finding is about. */
  path: string;
  kind: 'file' | 'secret' | 'duplicate' | 'stale';
  message: string;
  line?: number;
  fix: string;
}

export interface TeamCheckReport {
  folder: string;
  /** Team files that were read. */
  files: number;
  findings: TeamCheckFinding[];
}

/** Finds what a reviewer should see in the team folder of `workspace`. Writes nothing there. */
export async function checkTeamFolder(workspace: string, folder?: string): Promise<TeamCheckReport> {
  const root = teamFolderPath(workspace, folder);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-team-check-'));
  try {
    const memory = await Memory.open({
      dir: scratch,
      init: true,
      author: 'team check',
      // A secret is a finding here, not something to redact quietly: the file would still hold it.
      secrets: 'block',
      workspaceFolders: [{ name: path.basename(workspace) || 'workspace', path: workspace }],
      teamFolder: root,
    });
    try {
      const report = await memory.team!.sync();
      const findings = report.problems.map(({ path: file, problem }) => fileFinding(file, problem));
      const entities = await teamEntities(memory);
      const { files } = await memory.team!.status();
      const pathOf = new Map(files.map(({ id, path: file }) => [id, file]));
      findings.push(...duplicates(entities, pathOf));
      findings.push(...(await staleCitations(memory, pathOf)));
      return { folder: root, files: report.added.length + report.updated.length + report.unchanged, findings };
    } finally {
      await memory.close();
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A file the store did not take in: a secret refused by the store's guard, or a problem of the file itself. */
function fileFinding(file: string, problem: TeamFileProblem): TeamCheckFinding {
  const secret = problem.code === 'INVALID' && /secret/i.test(problem.message);
  return {
    path: file,
    kind: secret ? 'secret' : 'file',
    message: problem.message,
    ...(problem.line === undefined ? {} : { line: problem.line }),
    fix: secret ? 'Take the secret out of the file (and rotate it: it is in the branch history).' : problem.fix,
  };
}

async function teamEntities(memory: Memory): Promise<(MemoryEntity | SkillEntity)[]> {
  return [...(await memory.memories.list(TEAM_AGENT_ID)), ...(await memory.skills.list(TEAM_AGENT_ID))];
}

/** How many of an entity's rarest terms find its candidates: a near-duplicate shares them all but by chance. */
const RARE_TERMS = 3;

/**
 * Pairs of team entities of one type that say nearly the same: one of them
 * is likely a copy to merge. Compared in memory, each entity only with those
 * sharing one of its rarest terms (a text that says nearly the same shares
 * them), not by a search per entity: 5,000 searches took half a minute.
 */
function duplicates(
  entities: readonly (MemoryEntity | SkillEntity)[],
  pathOf: ReadonlyMap<string, string>,
): TeamCheckFinding[] {
  const vectors = entities.map((entity) => termCounts(entity.content));
  const holders = new Map<string, number[]>();
  vectors.forEach((vector, index) => {
    for (const term of vector.keys()) {
      const list = holders.get(term);
      if (list) list.push(index);
      else holders.set(term, [index]);
    }
  });
  const findings: TeamCheckFinding[] = [];
  entities.forEach((entity, index) => {
    const rarest = [...vectors[index]!.keys()]
      .sort((a, b) => holders.get(a)!.length - holders.get(b)!.length)
      .slice(0, RARE_TERMS);
    const candidates = new Set(rarest.flatMap((term) => holders.get(term)!).filter((other) => other > index));
    for (const other of candidates) {
      if (entities[other]!.type !== entity.type) continue;
      const similarity = termSimilarity(vectors[index]!, vectors[other]!);
      if (similarity < TEAM_DUPLICATE_SIMILARITY) continue;
      const otherId = entities[other]!.id;
      findings.push({
        path: pathOf.get(entity.id) ?? entity.id,
        kind: 'duplicate',
        message: `says nearly what ${pathOf.get(otherId) ?? otherId} says (similarity ${similarity.toFixed(2)}).`,
        fix: 'Merge the two into one file, or make each say what only it says.',
      });
    }
  });
  return findings;
}

/** Team entities whose cited code changed or is gone in this checkout. */
async function staleCitations(memory: Memory, pathOf: ReadonlyMap<string, string>): Promise<TeamCheckFinding[]> {
  const { entities } = await memory.checkCitations({ agentId: TEAM_AGENT_ID, reanchor: false });
  return entities.flatMap(({ entity, citations, stale }) => {
    if (!stale || entity.agentId !== TEAM_AGENT_ID) return [];
    return citations
      .filter(({ state }) => state === 'changed' || state === 'missing')
      .map(({ citation, state }) => ({
        path: pathOf.get(entity.id) ?? entity.id,
        kind: 'stale' as const,
        message: `cites ${citation.path}:${citation.startLine}-${citation.endLine}, which ${state === 'missing' ? 'is gone' : 'changed'}.`,
        fix: 'Check that it still holds, then cite the lines as they are now (Review Stale Memories) or change it.',
      }));
  });
}
