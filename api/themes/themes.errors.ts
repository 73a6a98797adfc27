/**
 * The error codes of the themes area: each code once, with its HTTP status and what it means. Throw
 * sites use `themesError(code, detail, errors)`, or ThemePackageInvalidError for a package the
 * validator refuses (its problem body also carries the findings); the API reference lists the codes
 * (api/error-codes.ts).
 */
import { AppError, defineErrorCodes, STATUS_TITLES, type FieldError, type ProblemBody } from '../../lib/errors';
import type { ThemeFinding } from '../../domain/theme-package/validate';

export const THEMES_ERRORS = defineErrorCodes('themes', {
  theme_package_not_found: {
    status: 404,
    description: 'The theme package does not exist (or belongs to another tenant, or to another store than the API key’s).',
  },
  theme_archive_malformed: {
    status: 400,
    description: 'The upload is not a readable tar.gz or zip of the theme folder (bad compression, a truncated archive, no files).',
  },
  theme_archive_path_invalid: {
    status: 400,
    description:
      'An archive entry is not a safe path relative to the theme root: absolute, with `..` segments, a backslash, a NUL or control character, or not UTF-8.',
  },
  theme_archive_entry_forbidden: {
    status: 400,
    description: 'An archive entry is a symlink, a hard link, a device or anything else than a regular file or a folder.',
  },
  theme_archive_duplicate_path: { status: 400, description: 'The archive holds the same path twice.' },
  theme_archive_too_many_files: { status: 400, description: 'The archive holds more files than a theme package may (500).' },
  theme_archive_too_large: {
    status: 413,
    description: 'The archive (10 MiB), one of its files (2 MiB) or all its files unpacked (20 MiB) are over their limit.',
  },
  theme_package_invalid: {
    status: 422,
    description:
      'The theme validator (the checks of `svc-theme validate`) found errors; they are listed in the problem body as `findings` and in `errors`.',
  },
  theme_template_not_found: { status: 404, description: 'The store’s theme has no such template.' },
  theme_section_not_found: { status: 404, description: 'The template of the store’s theme has no section with this id.' },
  theme_settings_invalid: {
    status: 400,
    description: 'A section setting is unknown to the section’s schema or its value does not fit the setting’s type.',
  },
  theme_asset_not_found: { status: 404, description: 'No published theme package of the store holds an asset with this content hash.' },
});

export const themesError = THEMES_ERRORS.error;

/** 422 theme_package_invalid: the problem body also lists the validator's error findings as `findings`. */
export class ThemePackageInvalidError extends AppError {
  constructor(readonly findings: ThemeFinding[]) {
    const errors: FieldError[] = findings.map((f) => ({
      path: f.file === null ? 'body' : `body.${f.file}${f.line ? `:${f.line}` : ''}`,
      message: `${f.rule}: ${f.message}`,
    }));
    super(
      422,
      THEMES_ERRORS.code('theme_package_invalid'),
      STATUS_TITLES[422]!,
      `The theme package has ${findings.length} error${findings.length === 1 ? '' : 's'}; fix them (svc-theme validate shows the same) and upload it again.`,
      errors,
    );
  }

  override toProblem(): ProblemBody & { findings: ThemeFinding[] } {
    return { ...super.toProblem(), findings: this.findings };
  }
}
