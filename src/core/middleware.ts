import type { Entity, EntityType } from './types';

type MaybePromise<T> = T | Promise<T>;

/**
 * Hooks that run before a write, in registration order. Each may transform
 * what is written or cancel it: `null` from beforeSave/beforeUpdate and
 * `false` from beforeDelete cancel.
 */
export interface Middleware {
  beforeSave?(entity: Entity): MaybePromise<Entity | null>;
  beforeUpdate?(entity: Entity, updates: Record<string, unknown>): MaybePromise<Record<string, unknown> | null>;
  beforeDelete?(entityId: string, entityType: EntityType): MaybePromise<boolean>;
}

export class MiddlewarePipeline {
  private readonly chain: Middleware[] = [];

  use(middleware: Middleware): () => void {
    this.chain.push(middleware);
    return () => {
      const index = this.chain.indexOf(middleware);
      if (index >= 0) this.chain.splice(index, 1);
    };
  }

  /** Lets bulk paths skip an await per item when no middleware has the hook. */
  intercepts(hook: keyof Middleware): boolean {
    return this.chain.some((middleware) => middleware[hook] !== undefined);
  }

  async beforeSave(entity: Entity): Promise<Entity | null> {
    let current: Entity | null = entity;
    for (const middleware of this.chain) {
      if (!current) break;
      if (middleware.beforeSave) current = await middleware.beforeSave(current);
    }
    return current;
  }

  async beforeUpdate(entity: Entity, updates: Record<string, unknown>): Promise<Record<string, unknown> | null> {
    let current: Record<string, unknown> | null = updates;
    for (const middleware of this.chain) {
      if (!current) break;
      if (middleware.beforeUpdate) current = await middleware.beforeUpdate(entity, current);
    }
    return current;
  }

  async beforeDelete(entityId: string, entityType: EntityType): Promise<boolean> {
    for (const middleware of this.chain) {
      if (middleware.beforeDelete && !(await middleware.beforeDelete(entityId, entityType))) return false;
    }
    return true;
  }
}
