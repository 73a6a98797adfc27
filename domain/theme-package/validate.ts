/**
 * The validator of a theme package: one pure function over the package's files (path relative to the
 * theme root, `/`-separated → bytes), used by the command line (`svc-theme validate`, before `push`)
 * and by the API when a package is uploaded, so both refuse exactly the same things.
 *
 * Four families of rules, each finding naming its rule, file and, where it has one, line and column:
 *
 * - `structure.*`: the folders of a theme (layout, templates, sections, snippets, assets, an optional
 *   theme.json), the required files, file names, text encoding.
 * - `security.*`: path traversal (in file names and in render/include/asset references), settings
 *   output with `| raw` or into a script without `| json`, scripts from hosts not allowed, inline
 *   scripts (the storefront's Content-Security-Policy blocks them), scripts inside SVG assets.
 * - `schema.*` and `template.*`: each section's `{% schema %}` (setting ids, types, defaults) and each
 *   JSON template (sections that exist, settings they declare, values of the right type).
 * - `liquid.*`: Liquid syntax, parsed with liquidjs configured as the storefront's engine is
 *   (unknown tags and filters are errors), with the parser's line and column.
 *
 * No I/O: the caller reads the folder or the archive into the map.
 */
import { Liquid, Tag, type Liquid as LiquidEngine, type TagToken, type TopLevelToken } from 'liquidjs';
import { Findings, type ThemeFinding } from './findings';
import { checkSectionSchema, checkTemplateSettings, type ParsedSchema } from './schema-rules';
import { jsonError, positionAt } from './text-position';

export interface ThemeValidationOptions {
  /** Hosts (e.g. `cdn.example.com`) whose scripts a theme may load; none by default. */
  allowedScriptHosts?: string[];
}

export type { ThemeFinding } from './findings';

/** The filters the storefront's engine provides; any other filter is a syntax error (strict filters). */
export const THEME_FILTERS = ['money', 'json', 'own_url', 'url_param', 'asset_url'] as const;

/** The files every theme must have. */
export const REQUIRED_THEME_FILES = ['layout/theme.liquid', 'templates/index.json'] as const;

const FOLDER_EXTENSIONS: Record<string, readonly string[]> = {
  layout: ['liquid'],
  templates: ['json'],
  sections: ['liquid'],
  snippets: ['liquid'],
  assets: ['css', 'js', 'mjs', 'map', 'json', 'txt', 'svg', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'ico', 'woff', 'woff2'],
};
const TEXT_EXTENSIONS = new Set(['liquid', 'json', 'css', 'js', 'mjs', 'map', 'txt', 'svg']);
const NAME_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

const SCHEMA_BLOCK = /{%-?\s*schema\s*-?%}([\s\S]*?){%-?\s*endschema\s*-?%}/g;
const OUTPUT = /{{-?([\s\S]*?)-?}}/g;
const ECHO = /{%-?\s*echo\b([\s\S]*?)-?%}/g;
const ASSIGN = /{%-?\s*(?:assign)\s+([A-Za-z_][\w-]*)\s*=([\s\S]*?)-?%}/g;
const CAPTURE = /{%-?\s*capture\s+([A-Za-z_][\w-]*)\s*-?%}([\s\S]*?){%-?\s*endcapture\s*-?%}/g;
const PARTIAL_REF = /{%-?\s*(render|include|layout)\s+(['"])([^'"]*)\2/g;
const ASSET_REF = /(['"])([^'"]*)\1\s*\|\s*asset_url\b/g;
const SCRIPT_ELEMENT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const SRC_ATTRIBUTE = /\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;
const EVENT_ATTRIBUTE = /\son[a-z]+\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;

/** `{% schema %}…{% endschema %}` for the parser: read by the engine from the source, renders nothing. */
class SchemaTag extends Tag {
  constructor(token: TagToken, remainTokens: TopLevelToken[], liquid: LiquidEngine) {
    super(token, remainTokens, liquid);
    while (remainTokens.length) {
      const next = remainTokens.shift() as TagToken;
      if (next.name === 'endschema') return;
    }
    throw new Error('{% schema %} is not closed');
  }

  *render(): Generator<unknown, void, unknown> {
    // nothing to render
  }
}

let parser: Liquid | undefined;
/** A parser configured as the storefront's engine: its tags and filters, strict filters. */
function liquidParser(): Liquid {
  if (!parser) {
    parser = new Liquid({ strictFilters: true, jsTruthy: false, outputEscape: 'escape' });
    parser.registerTag('schema', SchemaTag);
    for (const name of THEME_FILTERS) parser.registerFilter(name, (value: unknown) => value);
  }
  return parser;
}

/** Why a path may not be a file of a theme, for security (traversal) or structure (naming). */
function pathProblem(file: string): { rule: string; message: string } | undefined {
  if (file.includes('\0')) return { rule: 'security.path-traversal', message: 'The path contains a NUL character.' };
  if (file.startsWith('/') || /^[A-Za-z]:/.test(file) || file.includes('\\'))
    return { rule: 'security.path-traversal', message: 'Paths must be relative to the theme root and use `/`.' };
  const segments = file.split('/');
  if (segments.some((s) => s === '..' || s === '.'))
    return { rule: 'security.path-traversal', message: 'Paths may not contain `.` or `..` segments.' };
  if (segments.some((s) => !NAME_SEGMENT.test(s)))
    return {
      rule: 'structure.file-name',
      message: 'Each part of a path is 1 to 128 letters, digits, `.`, `_` or `-`, not starting with `.` or `-`.',
    };
  return undefined;
}

function extensionOf(file: string): string {
  const dot = file.lastIndexOf('.');
  return dot < 0 ? '' : file.slice(dot + 1).toLowerCase();
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
function decode(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Validates a theme package; answers every finding (an empty list: a valid theme). */
export function validateThemePackage(files: ReadonlyMap<string, Buffer>, options: ThemeValidationOptions = {}): ThemeFinding[] {
  const out = new Findings();
  const allowedHosts = new Set((options.allowedScriptHosts ?? []).map((h) => h.toLowerCase()));
  const texts = new Map<string, string>();

  for (const [file, bytes] of files) {
    const problem = pathProblem(file);
    if (problem) {
      out.error(problem.rule, file, problem.message);
      continue;
    }
    const segments = file.split('/');
    const ext = extensionOf(file);
    if (file === 'theme.json') {
      // read below with the other text files
    } else if (segments.length !== 2 || !FOLDER_EXTENSIONS[segments[0]!]) {
      out.error(
        'structure.unexpected-file',
        file,
        'A theme holds theme.json and files directly inside layout/, templates/, sections/, snippets/ and assets/.',
      );
      continue;
    } else if (!FOLDER_EXTENSIONS[segments[0]!]!.includes(ext)) {
      out.error(
        'structure.file-type',
        file,
        `Files in ${segments[0]}/ are ${FOLDER_EXTENSIONS[segments[0]!]!.map((e) => `.${e}`).join(', ')}.`,
      );
      continue;
    }
    if (TEXT_EXTENSIONS.has(ext)) {
      const text = decode(bytes);
      if (text === undefined || text.includes('\0')) {
        out.error('structure.encoding', file, 'Text files must be UTF-8 without NUL characters.');
        continue;
      }
      texts.set(file, text);
    }
  }

  for (const required of REQUIRED_THEME_FILES)
    if (!files.has(required)) out.error('structure.missing-file', required, `A theme needs ${required}.`);

  const themeJson = texts.get('theme.json');
  if (themeJson !== undefined) checkThemeJson(themeJson, out);

  const snippets = new Set([...texts.keys()].filter((f) => f.startsWith('snippets/')).map((f) => f.slice(9, -7)));
  const assets = new Set([...files.keys()].filter((f) => f.startsWith('assets/')).map((f) => f.slice(7)));
  const schemas = new Map<string, ParsedSchema | null>();

  for (const [file, text] of texts) {
    if (file.endsWith('.liquid')) {
      checkLiquidSyntax(file, text, out);
      checkReferences(file, text, snippets, assets, out);
      checkSecurity(file, text, allowedHosts, out);
      const blocks = [...text.matchAll(SCHEMA_BLOCK)];
      if (file.startsWith('sections/')) {
        const type = file.slice(9, -7);
        if (blocks.length === 0) {
          out.error('schema.missing', file, 'A section declares its settings in one {% schema %} … {% endschema %} block.');
          schemas.set(type, null);
        } else {
          if (blocks.length > 1)
            out.error('schema.duplicate', file, 'A section has exactly one {% schema %} block.', positionAt(text, blocks[1]!.index));
          const body = blocks[0]!;
          const offset = body.index + body[0].indexOf(body[1]!);
          schemas.set(type, checkSectionSchema(file, body[1]!, offset, text, out));
        }
      } else if (blocks.length) {
        out.warning('schema.ignored', file, 'Only sections have a {% schema %}; this one is ignored.', positionAt(text, blocks[0]!.index));
      }
    } else if (file.endsWith('.svg')) {
      const script = /<script\b|\son[a-z]+\s*=|javascript:/i.exec(text);
      if (script)
        out.error('security.svg-script', file, 'SVG assets may not contain scripts or event handlers.', positionAt(text, script.index));
    }
  }

  const used = new Set<string>();
  for (const [file, text] of texts) {
    if (!file.startsWith('templates/')) continue;
    checkTemplate(file, text, schemas, used, out);
  }
  for (const type of schemas.keys())
    if (!used.has(type)) out.warning('structure.unused-section', `sections/${type}.liquid`, `No template uses the section ${type}.`);

  return out.list;
}

function checkThemeJson(text: string, out: Findings): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const { message, at } = jsonError(text, error);
    out.error('structure.theme-json', 'theme.json', `theme.json is not valid JSON: ${message}`, at);
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    out.error('structure.theme-json', 'theme.json', 'theme.json is an object such as {"name": "Aurora", "version": "1.0.0"}.');
    return;
  }
  const { name, version } = value as { name?: unknown; version?: unknown };
  if (name !== undefined && (typeof name !== 'string' || name.trim().length === 0 || name.length > 100))
    out.error('structure.theme-json', 'theme.json', '`name` is a text of 1 to 100 characters.');
  if (version !== undefined && (typeof version !== 'string' || version.length > 64 || !SEMVER.test(version)))
    out.error('structure.theme-json', 'theme.json', '`version` is a semantic version such as 1.2.0.');
}

function checkLiquidSyntax(file: string, text: string, out: Findings): void {
  try {
    liquidParser().parse(text, file);
  } catch (error) {
    const err = error as Error & { token?: { getPosition?: () => [number, number] } };
    const position = err.token?.getPosition?.();
    const message = String(err.message ?? err)
      .replace(/, line:\d+, col:\d+$/, '')
      .replace(/, file:.*$/, '');
    out.error('liquid.syntax', file, message, position ? { line: position[0], column: position[1] } : undefined);
  }
}

/** render/include/layout names and asset references: existing files of the theme, never a path out of it. */
function checkReferences(file: string, text: string, snippets: Set<string>, assets: Set<string>, out: Findings): void {
  for (const match of text.matchAll(PARTIAL_REF)) {
    const [, tag, , name] = match;
    const at = positionAt(text, match.index);
    if (/(^|[\\/])\.\.?([\\/]|$)|^[\\/]|\\|\0/.test(name!) || name!.includes('/')) {
      out.error('security.path-traversal', file, `{% ${tag} '${name}' %} names a file outside the theme's snippets.`, at);
    } else if (tag === 'layout') {
      out.error('liquid.unsupported-tag', file, 'The storefront always renders layout/theme.liquid; {% layout %} is not supported.', at);
    } else if (!snippets.has(name!)) {
      out.error('liquid.missing-snippet', file, `{% ${tag} '${name}' %}: there is no snippets/${name}.liquid.`, at);
    }
  }
  for (const match of text.matchAll(ASSET_REF)) {
    const name = match[2]!;
    const at = positionAt(text, match.index);
    if (pathProblem(name)?.rule === 'security.path-traversal' || name.includes('/'))
      out.error('security.path-traversal', file, `'${name}' | asset_url names a file outside assets/.`, at);
    else if (!assets.has(name)) out.error('structure.missing-asset', file, `'${name}' | asset_url: there is no assets/${name}.`, at);
  }
}

/** Names assigned (or captured) from an expression that reads a setting: their output is a setting's output. */
function settingVariables(text: string): Set<string> {
  const names = new Set<string>();
  const reads = (expr: string): boolean => /\bsettings\b/.test(expr) || [...names].some((n) => new RegExp(`\\b${n}\\b`).test(expr));
  for (const m of text.matchAll(ASSIGN)) if (reads(m[2]!)) names.add(m[1]!);
  for (const m of text.matchAll(CAPTURE)) if (reads(m[2]!)) names.add(m[1]!);
  return names;
}

function checkSecurity(file: string, text: string, allowedHosts: Set<string>, out: Findings): void {
  const tainted = settingVariables(text);
  const readsSetting = (expr: string): boolean =>
    /\bsettings\b/.test(expr) || [...tainted].some((n) => new RegExp(`(^|[^\\w.-])${n}\\b`).test(expr));
  const filters = (expr: string): string[] =>
    expr
      .split('|')
      .slice(1)
      .map((f) => f.trim().split(/[\s:]/)[0]!);

  for (const pattern of [OUTPUT, ECHO]) {
    for (const m of text.matchAll(pattern)) {
      if (readsSetting(m[1]!) && filters(m[1]!).includes('raw'))
        out.error(
          'security.unescaped-setting',
          file,
          'A setting is output with `| raw`: a merchant-entered value could inject a <script>. Leave it escaped (the default).',
          positionAt(text, m.index),
        );
    }
  }

  for (const m of text.matchAll(SCRIPT_ELEMENT)) {
    const [whole, attributes, body] = m;
    const at = positionAt(text, m.index);
    const src = SRC_ATTRIBUTE.exec(attributes!);
    const source = src ? (src[1] ?? src[2] ?? src[3] ?? '') : undefined;
    if (source !== undefined) {
      if (source.includes('{{') && readsSetting(source))
        out.error(
          'security.external-script',
          file,
          'A script source is chosen by a setting; scripts come from the theme or allowed hosts only.',
          at,
        );
      const host = /^(?:https?:)?\/\/([^/?#:]+)/i.exec(source.trim())?.[1]?.toLowerCase();
      if (host && !allowedHosts.has(host))
        out.error(
          'security.external-script',
          file,
          `The script host ${host} is not allowed${allowedHosts.size ? ` (allowed: ${[...allowedHosts].join(', ')})` : ''}; serve the script from assets/.`,
          at,
        );
    } else if (body!.trim().length) {
      out.warning(
        'security.inline-script',
        file,
        "Inline scripts do not run: the storefront's Content-Security-Policy allows scripts from files only. Move the code to assets/.",
        at,
      );
    }
    const bodyStart = m.index + whole!.indexOf('>') + 1;
    for (const o of body!.matchAll(OUTPUT)) {
      const fs = filters(o[1]!);
      if (readsSetting(o[1]!) && fs[fs.length - 1] !== 'json')
        out.error(
          'security.setting-in-script',
          file,
          'A setting is written into a <script> without `| json`: HTML escaping does not protect JavaScript.',
          positionAt(text, bodyStart + o.index),
        );
    }
  }

  for (const m of text.matchAll(EVENT_ATTRIBUTE)) {
    const value = m[1] ?? m[2] ?? '';
    if (value.includes('{{') && readsSetting(value))
      out.error(
        'security.setting-in-script',
        file,
        'A setting is written into an event handler attribute (on…=): HTML escaping does not protect JavaScript.',
        positionAt(text, m.index),
      );
  }
}

function checkTemplate(
  file: string,
  text: string,
  schemas: ReadonlyMap<string, ParsedSchema | null>,
  used: Set<string>,
  out: Findings,
): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const { message, at } = jsonError(text, error);
    out.error('template.json', file, `Not valid JSON: ${message}`, at);
    return;
  }
  const sections = (value as { sections?: unknown } | null)?.sections;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Array.isArray(sections)) {
    out.error('template.structure', file, 'A template is an object with a `sections` list: {"sections": [{"type": "hero"}]}.');
    return;
  }
  for (const key of Object.keys(value))
    if (key !== 'sections') out.warning('template.structure', file, `Unknown key \`${key}\` is ignored.`);
  if (sections.length === 0) out.warning('template.structure', file, 'The template lists no sections: the page is empty.');
  if (sections.length > 50) out.error('template.structure', file, 'A template lists at most 50 sections.');
  sections.forEach((ref: unknown, index: number) => {
    const where = `sections[${index}]`;
    const type = (ref as { type?: unknown } | null)?.type;
    if (typeof ref !== 'object' || ref === null || Array.isArray(ref) || typeof type !== 'string') {
      out.error('template.structure', file, `${where} is an object with a \`type\` (a section's file name).`);
      return;
    }
    const problem = pathProblem(type);
    if (problem?.rule === 'security.path-traversal' || type.includes('/')) {
      out.error('security.path-traversal', file, `${where}.type names a file outside sections/.`);
      return;
    }
    used.add(type);
    if (!schemas.has(type)) {
      out.error('template.unknown-section', file, `${where}: there is no sections/${type}.liquid.`);
      return;
    }
    const settings = (ref as { settings?: unknown }).settings;
    for (const key of Object.keys(ref))
      if (key !== 'type' && key !== 'settings') out.warning('template.structure', file, `${where}: unknown key \`${key}\` is ignored.`);
    const schema = schemas.get(type);
    if (settings === undefined || !schema) return;
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
      out.error('template.structure', file, `${where}.settings is an object of setting values.`);
      return;
    }
    checkTemplateSettings(file, where, settings as Record<string, unknown>, schema, out);
  });
}
