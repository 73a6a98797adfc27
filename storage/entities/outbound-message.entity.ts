import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Every e-mail and SMS the platform sends, with the transport that took it (local or smtp). */
@Entity({ name: 'outbound_messages' })
export class OutboundMessage {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId!: string | null;
  @Column('text') channel!: 'email' | 'sms';
  @Column('text') recipient!: string;
  @Column('text') template!: string;
  @Column('text', { nullable: true }) subject!: string | null;
  @Column('text') body!: string;
  @Column('text') transport!: string;
  @Column('text', { default: 'sent' }) status!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
