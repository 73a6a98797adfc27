import { Column, Entity, PrimaryColumn } from 'typeorm';

export type PricingRuleType = 'PERCENT' | 'FIXED_AMOUNT' | 'FIXED_PRICE';
export type PricingRuleScope = 'ALL' | 'PRODUCTS' | 'CATEGORIES' | 'BRANDS' | 'COLLECTIONS';

/** From `minQuantity` units on a line, the rule uses `value` (a decimal string) instead of its own. */
export interface PricingRuleTier {
  minQuantity: number;
  value: string;
}

/** A price rule of a store (domain/pricing-engine.ts applies them). Amounts are numeric strings. */
@Entity({ name: 'pricing_rules' })
export class PricingRule {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId!: string;
  @Column('uuid', { name: 'store_id' }) storeId!: string;
  @Column('text') name!: string;
  @Column('text') type!: PricingRuleType;
  @Column('numeric', { precision: 14, scale: 4 }) value!: string;
  @Column('text', { default: 'ALL' }) scope!: PricingRuleScope;
  @Column('uuid', { name: 'target_ids', array: true, default: () => "'{}'" }) targetIds!: string[];
  @Column('text', { name: 'customer_groups', array: true, default: () => "'{}'" }) customerGroups!: string[];
  @Column('jsonb', { default: () => "'[]'::jsonb" }) tiers!: PricingRuleTier[];
  @Column('timestamptz', { name: 'starts_at', nullable: true }) startsAt!: Date | null;
  @Column('timestamptz', { name: 'ends_at', nullable: true }) endsAt!: Date | null;
  @Column('integer', { default: 0 }) priority!: number;
  @Column('boolean', { default: false }) stackable!: boolean;
  @Column('boolean', { name: 'is_active', default: true }) isActive!: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
