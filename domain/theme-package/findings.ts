/** One finding of the theme validator, and the list the rules add to. */

export interface ThemeFinding {
  severity: 'error' | 'warning';
  /** `family.name`, e.g. `security.unescaped-setting`; the families are structure, security, schema, template and liquid. */
  rule: string;
  /** Relative to the theme root, `/`-separated; null for the package as a whole. */
  file: string | null;
  line?: number;
  column?: number;
  message: string;
}

export interface TextPosition {
  line: number;
  column: number;
}

export class Findings {
  readonly list: ThemeFinding[] = [];

  error(rule: string, file: string | null, message: string, at?: TextPosition): void {
    this.list.push({ severity: 'error', rule, file, ...at, message });
  }

  warning(rule: string, file: string | null, message: string, at?: TextPosition): void {
    this.list.push({ severity: 'warning', rule, file, ...at, message });
  }
}
