import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An in-app notification of a tenant (storage/notifications.ts writes them). */
@Entity({ name: 'merchant_notifications' })
export class MerchantNotification {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  /** The store it is about, when it is about one. */
  @Column('uuid', { name: 'store_id', nullable: true }) storeId!: string | null;
  /** The one member it is for; null: every member of the tenant. */
  @Column('uuid', { name: 'user_id', nullable: true }) userId!: string | null;
  /** What happened, `<area>.<event>` (e.g. `support.ticket_replied`). */
  @Column('text') topic!: string;
  @Column('text') title!: string;
  @Column('text') body!: string;
  /** Where the console shows the subject (a path of the console or the API). */
  @Column('text', { nullable: true }) link!: string | null;
  /** At most one notification per tenant and key (retries notify once). */
  @Column('text', { name: 'dedupe_key', nullable: true }) dedupeKey!: string | null;
  @Column('timestamptz', { name: 'read_at', nullable: true }) readAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
