/**
 * Tenant scoping for repositories (docs/decisions.md, Tenancy): services get a repository already bound to the
 * request's tenant, so no query has to remember `WHERE tenant_id`. Reads only see the tenant's rows,
 * writes stamp the tenant, updates and deletes cannot reach another tenant's rows, and a row of another
 * tenant is indistinguishable from a missing one (404).
 */
import type {
  DeepPartial,
  EntityTarget,
  FindManyOptions,
  FindOneOptions,
  FindOptionsWhere,
  ObjectLiteral,
  Repository,
  SelectQueryBuilder,
} from 'typeorm';
import { NotFoundError } from '../lib/errors';
import type { RequestContext } from './request-context';

export interface TenantOwned extends ObjectLiteral {
  tenantId: string;
}

function scopeWhere<T extends TenantOwned>(
  where: FindOptionsWhere<T> | FindOptionsWhere<T>[] | undefined,
  tenantId: string,
): FindOptionsWhere<T> | FindOptionsWhere<T>[] {
  const scope = { tenantId } as FindOptionsWhere<T>;
  if (where === undefined) return scope;
  // An array is an OR of conditions: each alternative must carry the tenant, or one could escape it.
  if (Array.isArray(where)) return where.map((w) => ({ ...w, ...scope }));
  return { ...where, ...scope };
}

export class TenantRepository<T extends TenantOwned> {
  constructor(
    private readonly repository: Repository<T>,
    readonly tenantId: string,
    private readonly notFound: () => Error,
  ) {}

  find(options: FindManyOptions<T> = {}): Promise<T[]> {
    return this.repository.find({
      ...options,
      where: scopeWhere(options.where as FindOptionsWhere<T> | FindOptionsWhere<T>[] | undefined, this.tenantId),
    });
  }

  findOne(options: FindOneOptions<T>): Promise<T | null> {
    return this.repository.findOne({
      ...options,
      where: scopeWhere(options.where as FindOptionsWhere<T> | FindOptionsWhere<T>[] | undefined, this.tenantId),
    });
  }

  findOneBy(where: FindOptionsWhere<T>): Promise<T | null> {
    return this.repository.findOneBy(scopeWhere(where, this.tenantId));
  }

  /** The row, or the area's 404 — also when it exists under another tenant. */
  async getOneBy(where: FindOptionsWhere<T>): Promise<T> {
    const found = await this.findOneBy(where);
    if (!found) throw this.notFound();
    return found;
  }

  count(options: FindManyOptions<T> = {}): Promise<number> {
    return this.repository.count({
      ...options,
      where: scopeWhere(options.where as FindOptionsWhere<T> | FindOptionsWhere<T>[] | undefined, this.tenantId),
    });
  }

  exists(where: FindOptionsWhere<T>): Promise<boolean> {
    return this.repository.exists({ where: scopeWhere(where, this.tenantId) });
  }

  /** Builds an entity stamped with the tenant (a tenantId in `values` is overridden, never trusted). */
  create(values: DeepPartial<T>): T {
    return this.repository.create({ ...values, tenantId: this.tenantId } as DeepPartial<T>);
  }

  /**
   * Inserts or updates the tenant's row. save() upserts by primary key, so a row with the same id
   * under another tenant is refused as not found instead of being taken over.
   */
  async save(entity: T): Promise<T> {
    if (entity.tenantId !== undefined && entity.tenantId !== this.tenantId) throw this.notFound();
    const ids = this.repository.metadata.getEntityIdMap(entity);
    if (ids) {
      const existing = await this.repository.findOne({ where: ids as FindOptionsWhere<T>, select: { tenantId: true } as never });
      if (existing && existing.tenantId !== this.tenantId) throw this.notFound();
    }
    return this.repository.save({ ...entity, tenantId: this.tenantId });
  }

  /** Updates the tenant's rows matching `where`; returns how many changed. */
  async update(where: FindOptionsWhere<T>, values: DeepPartial<T>): Promise<number> {
    const { tenantId: _ignored, ...rest } = values as DeepPartial<T> & { tenantId?: unknown };
    const result = await this.repository.update(scopeWhere(where, this.tenantId) as FindOptionsWhere<T>, rest as never);
    return result.affected ?? 0;
  }

  /** Deletes the tenant's rows matching `where`; returns how many were deleted. */
  async delete(where: FindOptionsWhere<T>): Promise<number> {
    const result = await this.repository.delete(scopeWhere(where, this.tenantId) as FindOptionsWhere<T>);
    return result.affected ?? 0;
  }

  /** A query builder that already filters on the tenant; add conditions with andWhere. */
  createQueryBuilder(alias: string): SelectQueryBuilder<T> {
    return this.repository.createQueryBuilder(alias).where(`${alias}.tenantId = :__tenantId`, { __tenantId: this.tenantId });
  }
}

/**
 * The tenant-scoped repository of `entity` for the request, on the request's transaction when in one.
 * Throws 401-style misuse early: a tenant route must have a tenant.
 */
export function tenantRepository<T extends TenantOwned>(
  ctx: RequestContext,
  entity: EntityTarget<T>,
  notFound: () => Error = () => new NotFoundError(),
): TenantRepository<T> {
  if (!ctx.tenantId) throw new Error('tenantRepository needs a request context with a tenant');
  return new TenantRepository(ctx.manager.getRepository(entity), ctx.tenantId, notFound);
}
