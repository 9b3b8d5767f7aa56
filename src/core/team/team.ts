import { MemoryError } from '../errors';
import type { EntityStore, VersionBody } from '../store/entity-store';
import { bodyOf } from '../store/object-body';
import { type Entity, isTeamType, type MemoryEntity, type SkillEntity, TEAM_AGENT_ID } from '../types';
import { assertId, assertOptionalId } from '../validation';
import { scanTeamFolder, type TeamFolderProblem, type TeamScanCache } from './folder';
import { gitIdentity, gitStates, teamAuthors, type TeamGitState } from './git';
import type { TeamFolderMirror } from './mirror';
import { syncTeamFolder, type TeamChange, type TeamSyncReport } from './sync';

/** A team entity as the views list it: where its file is and what git says of it. */
export interface TeamFileStatus {
  id: string;
  type: 'memory' | 'skill';
  path: string;
  state: TeamGitState;
}

export interface TeamStatus {
  folder: string;
  files: TeamFileStatus[];
  /** Files the store did not take, and why (conflicts, bad front matter, duplicate ids…). */
  problems: TeamFolderProblem[];
}

/**
 * The team scope of a store: the repository's team folder (`.memory/`),
 * kept in step with the store both ways. The folder comes into the store by
 * `sync` (a pull, a checkout, an edit by hand); a write to a team entity,
 * through any door, writes its file (see TeamFolderMirror).
 */
export class Team {
  /** The files read so far: a sync after a pull reads only what the pull changed. */
  private readonly read: TeamScanCache = new Map();
  /** The files the last sync did not take in, and why. */
  private refused: TeamFolderProblem[] | undefined;

  constructor(
    private readonly store: EntityStore,
    private readonly mirror: TeamFolderMirror,
    private readonly announce: (changes: readonly TeamChange[]) => void,
  ) {}

  /** The team folder, absolute. */
  get folder(): string {
    return this.mirror.root;
  }

  /**
   * Brings the folder into the store: each file's entity as the file says
   * (its commit by the file's last git author), team entities whose file is
   * gone deleted, files with problems left out with their entity as it was.
   */
  async sync(): Promise<TeamSyncReport> {
    const [authors, states, person] = await Promise.all([
      teamAuthors(this.folder),
      gitStates(this.folder),
      gitIdentity(this.folder),
    ]);
    this.mirror.person = person;
    // A file changed here and not committed yet is this person's edit, not its last committer's.
    for (const [file, state] of states) {
      if (person && state !== 'committed') authors.lastAuthors.set(file, person);
    }
    const scan = scanTeamFolder(this.folder, this.read);
    const { report, changes } = syncTeamFolder(this.store, this.folder, scan, authors);
    this.refused = report.problems;
    this.mirror.reset(scan.entries);
    this.announce(changes);
    return report;
  }

  /** What is in the folder, each file with its git state, and the files that have problems. Writes nothing. */
  async status(): Promise<TeamStatus> {
    const scan = scanTeamFolder(this.folder, this.read);
    const states = await gitStates(this.folder);
    // What the last sync refused besides what a scan finds (an id of someone's own memory, a value the store refuses).
    const present = new Set([...scan.entries, ...scan.problems].map(({ path }) => path));
    const refused = (this.refused ?? []).filter(({ path }) => present.has(path));
    const problems = [
      ...scan.problems,
      ...refused.filter((one) => !scan.problems.some(({ path }) => path === one.path)),
    ];
    const left = new Set(problems.map(({ path }) => path));
    return {
      folder: this.folder,
      files: scan.entries
        .filter(({ path }) => !left.has(path))
        .map(({ id, type, path }) => ({ id, type, path, state: states.get(path) ?? 'committed' })),
      problems,
    };
  }

  /**
   * Makes a personal memory or skill team memory: its file is written in the
   * team folder and it leaves the personal scope, as a new version of the
   * same entity (its history stays linked).
   */
  async share(id: string): Promise<MemoryEntity | SkillEntity> {
    const entity = this.requireShareable(id);
    if (entity.agentId === TEAM_AGENT_ID) return entity;
    const { userId: _user, ...body } = bodyOf(entity);
    return this.move(entity, { ...body, agentId: TEAM_AGENT_ID }, 'share with the team');
  }

  /** Makes a team memory or skill personal again (`agentId`'s, and `userId`'s if given): its file goes. */
  async makePersonal(id: string, agentId: string, userId?: string): Promise<MemoryEntity | SkillEntity> {
    const entity = this.requireShareable(id);
    if (entity.agentId !== TEAM_AGENT_ID) {
      throw new MemoryError('INVALID_INPUT', `${id} is not team memory; it is already someone's own.`);
    }
    const agent = assertId(agentId, 'agent id');
    const user = entity.type === 'memory' ? assertOptionalId(userId, 'user id') : undefined;
    if (agent === TEAM_AGENT_ID) throw new MemoryError('INVALID_INPUT', 'Make it personal to an agent, not the team.');
    const { userId: _user, ...body } = bodyOf(entity);
    return this.move(entity, { ...body, agentId: agent, ...(user ? { userId: user } : {}) }, 'make personal');
  }

  private requireShareable(id: string): MemoryEntity | SkillEntity {
    const entity = this.store.get(assertId(id));
    if (!entity) throw new MemoryError('NOT_FOUND', `No memory or skill with id ${id}.`);
    if (!isTeamType(entity.type)) {
      throw new MemoryError('INVALID_INPUT', `Only memories and skills can be team memory, not a ${entity.type}.`);
    }
    return entity as MemoryEntity | SkillEntity;
  }

  private move(entity: Entity, body: VersionBody, message: string): MemoryEntity | SkillEntity {
    const written = this.store.db.transaction(() => this.store.write({ id: entity.id, body, op: 'update', message }));
    this.announce([{ kind: 'update', entity: written.entity, previous: entity, commit: written.commit }]);
    return written.entity as MemoryEntity | SkillEntity;
  }
}
