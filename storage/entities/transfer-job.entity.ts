import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export type TransferJobKind = 'PRODUCT_IMPORT' | 'PRODUCT_EXPORT';
export type TransferJobState = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED';

/** A product import or export job of a store, with its progress (see the migration 1795000001100). */
@Entity({ name: 'transfer_jobs' })
export class TransferJob {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') kind!: TransferJobKind;
  @Column('text') state!: TransferJobState;
  @Column('text', { name: 'actor_type' }) actorType!: string;
  @Column('text', { name: 'actor_id', nullable: true }) actorId!: string | null;
  @Column('bigint', { name: 'file_bytes', default: 0 }) fileBytes!: string;
  @Column('integer', { name: 'next_row', default: 1 }) nextRow!: number;
  @Column('integer', { name: 'rows_read', default: 0 }) rowsRead!: number;
  @Column('integer', { name: 'rows_failed', default: 0 }) rowsFailed!: number;
  @Column('integer', { name: 'products_created', default: 0 }) productsCreated!: number;
  @Column('integer', { name: 'products_updated', default: 0 }) productsUpdated!: number;
  @Column('integer', { name: 'products_unchanged', default: 0 }) productsUnchanged!: number;
  @Column('integer', { name: 'products_failed', default: 0 }) productsFailed!: number;
  @Column('integer', { name: 'products_exported', default: 0 }) productsExported!: number;
  @Column('integer', { name: 'errors_count', default: 0 }) errorsCount!: number;
  /** Exports: the last product id in the chunks written so far (a resumed export goes on after it). */
  @Column('uuid', { name: 'export_after', nullable: true }) exportAfter!: string | null;
  @Column('text', { nullable: true }) failure!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'started_at', nullable: true }) startedAt!: Date | null;
  @Column('timestamptz', { name: 'finished_at', nullable: true }) finishedAt!: Date | null;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

@Entity({ name: 'transfer_job_errors' })
export class TransferJobError {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id!: string;
  @Column('uuid', { name: 'job_id' }) jobId!: string;
  @Column('integer', { name: 'row_number' }) rowNumber!: number;
  @Column('text', { name: 'column_name', nullable: true }) columnName!: string | null;
  @Column('text') message!: string;
}

@Entity({ name: 'transfer_job_chunks' })
export class TransferJobChunk {
  @PrimaryColumn('uuid', { name: 'job_id' }) jobId!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @PrimaryColumn('integer') seq!: number;
  @Column('bytea') data!: Buffer;
}
