/**
 * Crafted theme archives for the theme package tests: a valid minimal theme, tar.gz archives with any
 * header (symlinks, hard links, traversal, absolute paths) and zip archives with any entry name and
 * Unix mode, written here byte by byte so the tests control exactly what the server receives.
 */
import zlib from 'node:zlib';
import tar from 'tar-stream';

export interface TarEntry {
  name: string;
  content?: string | Buffer;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'fifo';
  linkname?: string;
}

/** A theme the validator accepts: a layout, an index template and one section with every editable kind of setting. */
export function minimalTheme(marker = 'package-one', extra: Record<string, string> = {}): Record<string, string> {
  return {
    'theme.json': JSON.stringify({ name: `Theme ${marker}`, version: '1.2.3' }),
    'layout/theme.liquid': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ page_title }}</title><link rel="stylesheet" href="{{ 'theme.css' | asset_url }}"></head><body data-theme="${marker}">{{ sections_header }}<main id="main">{{ content_for_layout }}</main>{{ sections_footer }}</body></html>`,
    'templates/index.json': JSON.stringify({ sections: [{ type: 'banner' }] }),
    'sections/banner.liquid': `<section class="banner" style="color: {{ section.settings.color }}"><h1>${marker}: {{ section.settings.heading }}</h1>{% render 'note' %}<div class="text">{{ section.settings.text }}</div><p class="product">{{ section.settings.product }}</p><ul>{% for item in section.settings.items %}<li class="item">{{ item.label }}</li>{% endfor %}</ul></section>
{% schema %}
{ "name": "Banner", "settings": [
  { "id": "heading", "type": "text", "label": "Heading", "default": "Welcome" },
  { "id": "color", "type": "color", "label": "Text colour", "default": "#111111" },
  { "id": "text", "type": "richtext", "label": "Text", "default": "<p>Hello</p>" },
  { "id": "product", "type": "product", "label": "Product" },
  { "id": "items", "type": "repeater", "label": "Items", "fields": [ { "id": "label", "type": "text", "label": "Label" } ] } ] }
{% endschema %}`,
    'snippets/note.liquid': `<p class="note">${marker} note</p>`,
    'assets/theme.css': `body { --marker: "${marker}"; }`,
    ...extra,
  };
}

export async function tarGz(entries: TarEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const gzip = zlib.createGzip();
  gzip.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => gzip.on('end', resolve));
  pack.pipe(gzip);
  for (const e of entries) {
    const content = e.content === undefined ? undefined : Buffer.from(e.content);
    const header = {
      name: e.name,
      type: e.type ?? 'file',
      linkname: e.linkname,
      size: content?.length ?? 0,
      mode: e.type === 'directory' ? 0o755 : 0o644,
    };
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error | null) => (err ? reject(err) : resolve());
      if (content) pack.entry(header, content, done);
      else pack.entry(header, done);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

export const themeTarGz = (files: Record<string, string>): Promise<Buffer> =>
  tarGz(Object.entries(files).map(([name, content]) => ({ name, content })));

export interface ZipEntry {
  name: string;
  content?: string | Buffer;
  /** Unix mode (e.g. 0o120777 for a symlink); written with "made by Unix". */
  mode?: number;
}

/** A zip (deflated entries) with the names and modes given, central directory included. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = Buffer.from(e.content ?? '');
    const compressed = zlib.deflateRawSync(data);
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? (e.name.endsWith('/') ? 0o040755 : 0o100644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export const themeZip = (files: Record<string, string>): Buffer => zip(Object.entries(files).map(([name, content]) => ({ name, content })));
