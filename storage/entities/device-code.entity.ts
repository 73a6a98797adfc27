import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DeviceCodeStatus = 'pending' | 'approved' | 'denied' | 'consumed';

/** RFC 8628 device authorization: the device code is stored hashed, the user code in clear (short-lived, typed by a person). */
@Entity({ name: 'device_codes' })
export class DeviceCode {
  @PrimaryColumn('uuid') id!: string;
  @Column('text', { name: 'device_code_hash' }) deviceCodeHash!: string;
  @Column('text', { name: 'user_code' }) userCode!: string;
  @Column('text', { name: 'client_name' }) clientName!: string;
  @Column('text', { array: true, default: () => "'{}'" }) scopes!: string[];
  @Column('text', { default: 'pending' }) status!: DeviceCodeStatus;
  @Column('integer', { name: 'interval_seconds' }) intervalSeconds!: number;
  @Column('uuid', { name: 'user_id', nullable: true }) userId!: string | null;
  @Column('timestamptz', { name: 'last_polled_at', nullable: true }) lastPolledAt!: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt!: Date;
}
