/** SQL rows of the integration catalog and of a store's connected integrations (docs/integrations.md). */
import type { SettingField, SettingValue } from './integration-settings';
import type { IntegrationKind } from './store-integrations.schemas';

export const CATALOG_COLUMNS = 'slug, kind, name, description, live, listed, position, settings_schema';

export interface CatalogRow {
  slug: string;
  kind: IntegrationKind;
  name: string;
  description: string;
  live: boolean;
  listed: boolean;
  position: number;
  settings_schema: SettingField[];
}

/** Every column but the sealed secrets, which only the code that calls the external system opens. */
export const STORE_INTEGRATION_COLUMNS = `si.id, si.tenant_id, si.store_id, si.integration, si.kind, si.enabled, si.is_default, si.settings,
  si.secret_hints, si.created_at, si.updated_at, c.name, c.live`;

export interface StoreIntegrationRow {
  id: string;
  tenant_id: string;
  store_id: string;
  integration: string;
  kind: IntegrationKind;
  enabled: boolean;
  is_default: boolean;
  settings: Record<string, SettingValue>;
  secret_hints: Record<string, string | null>;
  created_at: Date;
  updated_at: Date;
  name: string;
  live: boolean;
}

export const FROM_STORE_INTEGRATIONS = 'store_integrations si JOIN integration_catalog c ON c.slug = si.integration';
