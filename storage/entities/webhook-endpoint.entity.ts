import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A receiver URL of a tenant and the topics it subscribes ('*' = all); its signing secret is kept encrypted (AES-256-GCM, key from APP_SECRET). */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpoint {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('text') url!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('text', { array: true }) topics!: string[];
  @Column('boolean', { default: true }) enabled!: boolean;
  @Column('text', { name: 'secret_enc' }) secretEnc!: string;
  @Column('text', { name: 'secret_last4' }) secretLast4!: string;
  @Column('timestamptz', { name: 'secret_rotated_at', nullable: true }) secretRotatedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
