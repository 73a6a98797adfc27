/** SQL rows of theme packages, their files, a store's active package and its saved section settings (docs/themes.md). */
import type { ThemeFinding } from '../../domain/theme-package/validate';

export const PACKAGE_COLUMNS = `p.id, p.tenant_id, p.store_id, p.name, p.version, p.status, p.file_count, p.bytes, p.checksum, p.findings,
  p.created_at, p.published_at, (a.package_id IS NOT NULL) AS active`;

/** A package with whether it is its store's active one. */
export const FROM_PACKAGES = 'theme_packages p LEFT JOIN store_active_themes a ON a.store_id = p.store_id AND a.package_id = p.id';

export interface PackageRow {
  id: string;
  tenant_id: string;
  store_id: string;
  name: string;
  version: string;
  status: 'DRAFT' | 'PUBLISHED';
  file_count: number;
  bytes: string;
  checksum: string;
  findings: ThemeFinding[];
  created_at: Date;
  published_at: Date | null;
  active: boolean;
}

export interface PackageFileRow {
  path: string;
  bytes: number;
  sha256: string;
}

export interface PackageFileContentRow extends PackageFileRow {
  content: Buffer;
}

export interface SectionSettingsRow {
  template: string;
  section_id: string;
  settings: Record<string, unknown>;
  updated_at: Date;
}
