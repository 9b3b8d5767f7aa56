import type { CommitInfo, Entity, EntityType } from './types';

export interface MemoryEvents {
  'entity:save': { entity: Entity; commit: CommitInfo };
  'entity:update': { entity: Entity; previous: Entity; commit: CommitInfo };
  'entity:delete': { entityId: string; entityType: EntityType; commit: CommitInfo };
  /**
   * An entity changed state without new content, or was written into a state
   * other than live: queued for review, approved, rejected, superseded by a
   * correction, reinstated.
   */
  'entity:state': {
    entityId: string;
    entityType: EntityType;
    state: 'pending' | 'live' | 'rejected' | 'superseded';
    commit: CommitInfo;
  };
  /** The whole state was replaced (snapshot restore) or bulk-loaded (import). */
  'store:replaced': { reason: 'restore' | 'import'; snapshotId?: string };
  /** Something worked only in part (an unreachable embedder, say); nothing was lost. */
  warning: { message: string };
}

export type MemoryEventName = keyof MemoryEvents;
export type MemoryEventHandler<K extends MemoryEventName> = (payload: MemoryEvents[K]) => unknown;

/**
 * A typed event bus whose handlers can never break a write: it has already
 * committed when events fire, so a throwing or rejecting handler is reported
 * to `onHandlerError` and otherwise ignored.
 */
export class EventBus {
  private readonly handlers = new Map<MemoryEventName, Set<(payload: never) => unknown>>();

  constructor(private readonly onHandlerError: (error: unknown, event: MemoryEventName) => void) {}

  on<K extends MemoryEventName>(event: K, handler: MemoryEventHandler<K>): () => void {
    let set = this.handlers.get(event);
    if (!set) this.handlers.set(event, (set = new Set()));
    set.add(handler);
    return () => this.off(event, handler);
  }

  off<K extends MemoryEventName>(event: K, handler: MemoryEventHandler<K>): void {
    this.handlers.get(event)?.delete(handler);
  }

  emit<K extends MemoryEventName>(event: K, payload: MemoryEvents[K]): void {
    const set = this.handlers.get(event);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        const result = (handler as MemoryEventHandler<K>)(payload);
        if (result instanceof Promise) result.catch((error: unknown) => this.onHandlerError(error, event));
      } catch (error) {
        this.onHandlerError(error, event);
      }
    }
  }
}
