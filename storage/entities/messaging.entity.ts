/**
 * The tables of messages to customers (migration 1795000003100-messaging, docs/messaging.md). The
 * pipeline and the areas query them with SQL; these classes describe them for the data source.
 */
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An address that must not be e-mailed: only its SHA-256 hash and domain, for one store or platform-wide. */
@Entity({ name: 'email_suppression_entries' })
export class EmailSuppressionEntry {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId!: string | null;
  @Column('uuid', { name: 'store_id', nullable: true }) storeId!: string | null;
  @Column('boolean', { name: 'applies_platform', default: false }) appliesPlatform!: boolean;
  @Column('text', { name: 'email_hash' }) emailHash!: string;
  @Column('text', { name: 'email_domain' }) emailDomain!: string;
  @Column('text') reason!: 'HARD_BOUNCE' | 'COMPLAINT' | 'UNSUBSCRIBE' | 'MANUAL';
  @Column('text', { name: 'created_by_type' }) createdByType!: string;
  @Column('text', { name: 'created_by_id', nullable: true }) createdById!: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}

/** A customer's choice for one category (absent: enabled). */
@Entity({ name: 'customer_notification_preferences' })
export class CustomerNotificationPreference {
  @PrimaryColumn('uuid', { name: 'customer_id' }) customerId!: string;
  @PrimaryColumn('text') category!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('boolean') enabled!: boolean;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** The tenant's switch for one category (absent: enabled). */
@Entity({ name: 'tenant_notification_policies' })
export class TenantNotificationPolicy {
  @PrimaryColumn('uuid', { name: 'tenant_id' }) tenantId!: string;
  @PrimaryColumn('text') category!: string;
  @Column('boolean') enabled!: boolean;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}

/** The tenant's digest: frequency, hour and time zone, and the last period sent. */
@Entity({ name: 'tenant_notification_digests' })
export class TenantNotificationDigest {
  @PrimaryColumn('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('text') frequency!: 'DAILY' | 'WEEKLY' | 'OFF';
  @Column('integer') hour!: number;
  @Column('text', { name: 'time_zone' }) timeZone!: string;
  @Column('text', { name: 'last_period', nullable: true }) lastPeriod!: string | null;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
