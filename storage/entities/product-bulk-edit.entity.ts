import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Product bulk edit `action` and `status`: the specification's enumerated values. */
export type BulkEditAction = 'UPDATE_PRICE' | 'UPDATE_STATUS' | 'UPDATE_TAGS' | 'UPDATE_CATEGORY' | 'ARCHIVE' | 'DELETE';
export type BulkEditStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';
/** The operation that made the edit: one of the eight bulk routes, or a revert of another edit. */
export type BulkEditOperation =
  'publish' | 'archive' | 'hard-delete' | 'set-category' | 'set-status' | 'update-price' | 'add-tags' | 'remove-tags' | 'revert';
export type BulkEditItemStatus = 'PENDING' | 'OK' | 'UNCHANGED' | 'FAILED';

/** One bulk operation on products of a store (or the revert of one), with its progress counters. */
@Entity({ name: 'product_bulk_edits' })
export class ProductBulkEdit {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') action!: BulkEditAction;
  @Column('text') operation!: BulkEditOperation;
  @Column('text') status!: BulkEditStatus;
  /** The request without its product ids (the new status, category, tags or price change). */
  @Column('jsonb', { default: () => "'{}'::jsonb" }) params!: Record<string, unknown>;
  @Column('text', { name: 'actor_type' }) actorType!: string;
  @Column('text', { name: 'actor_id', nullable: true }) actorId!: string | null;
  @Column('integer', { name: 'product_count' }) productCount!: number;
  @Column('integer', { name: 'processed_count', default: 0 }) processedCount!: number;
  @Column('integer', { name: 'ok_count', default: 0 }) okCount!: number;
  @Column('integer', { name: 'unchanged_count', default: 0 }) unchangedCount!: number;
  @Column('integer', { name: 'failed_count', default: 0 }) failedCount!: number;
  @Column('uuid', { name: 'revert_of', nullable: true }) revertOf!: string | null;
  @Column('uuid', { name: 'reverted_by', nullable: true }) revertedBy!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
  @Column('timestamptz', { name: 'finished_at', nullable: true }) finishedAt!: Date | null;
}

/** One selected product of a bulk edit: its result and the previous values of what the edit changed. */
@Entity({ name: 'product_bulk_edit_items' })
export class ProductBulkEditItem {
  @PrimaryColumn('uuid', { name: 'bulk_edit_id' }) bulkEditId!: string;
  @PrimaryColumn('uuid', { name: 'product_id' }) productId!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('integer') position!: number;
  @Column('text', { default: 'PENDING' }) status!: BulkEditItemStatus;
  @Column('text', { name: 'error_code', nullable: true }) errorCode!: string | null;
  @Column('text', { name: 'error_message', nullable: true }) errorMessage!: string | null;
  @Column('jsonb', { nullable: true }) previous!: Record<string, unknown> | null;
  @Column('timestamptz', { name: 'updated_at_after', nullable: true }) updatedAtAfter!: Date | null;
  @Column('timestamptz', { name: 'processed_at', nullable: true }) processedAt!: Date | null;
}
