/**
 * Theme packages over HTTP: upload of tar.gz and zip archives (validated, stored as drafts), every
 * refusal of a bad archive (traversal, absolute paths, symlinks, hard links, too large, too many
 * files, malformed gzip and zip) with nothing stored, the validator's 422, list/get/download,
 * publish and rollback, roles, API key scopes and tenant isolation, and section settings.
 */
import zlib from 'node:zlib';
import { expect } from 'chai';
import tar from 'tar-stream';
import { call, type TestServer } from '../helpers/harness';
import { apiSuite } from '../helpers/api-suite';
import { addMember, auditRows, expectProblem } from '../helpers/accounts';
import { apiKey, merchant, type Merchant } from '../helpers/fixtures';
import { ThemePackageDetailResponse, ThemePackageListResponse, ThemePackageResponse } from '../../api/themes/themes.schemas';
import { minimalTheme, tarGz, themeTarGz, themeZip, zip } from './themes-archives';

const API = '/api/v1';

describe('Theme packages', function () {
  this.timeout(60_000);
  let server: TestServer;
  const suite = apiSuite((started) => (server = started));
  let m: Merchant;

  before(async () => {
    m = suite.addMerchant(await merchant(server));
  });

  const db = (sql: string, params: unknown[] = []): Promise<any[]> => server.runtime.dataSource.query(sql, params);
  const upload = (archive: Buffer, contentType = 'application/gzip', who: { headers: Record<string, string>; storeId: string } = m) =>
    call(server, 'POST', `${API}/themes/packages?storeId=${who.storeId}`, { headers: who.headers, rawBody: archive, contentType });
  const publish = (id: string, headers = m.headers) => call(server, 'POST', `${API}/themes/packages/${id}/publish`, { headers });
  const packageCount = async (storeId = m.storeId) =>
    Number((await db('SELECT count(*) AS n FROM theme_packages WHERE store_id = $1', [storeId]))[0].n);

  async function untar(archive: Buffer): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const extract = tar.extract();
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        out.set(header.name, Buffer.concat(chunks).toString('utf8'));
        next();
      });
    });
    await new Promise<void>((resolve, reject) => {
      extract.on('finish', resolve);
      extract.on('error', reject);
      extract.end(zlib.gunzipSync(archive));
    });
    return out;
  }

  it('stores a valid tar.gz as a draft with its files, name, version and checksum, and downloads exactly those files', async () => {
    const files = minimalTheme('alpha');
    const res = await upload(await themeTarGz(files));
    expect(res.status, res.text).to.equal(201);
    expect(ThemePackageResponse.schema.validate(res.json).error?.message).to.equal(undefined);
    expect(res.json).to.include({
      storeId: m.storeId,
      name: 'Theme alpha',
      version: '1.2.3',
      status: 'DRAFT',
      active: false,
      publishedAt: null,
    });
    expect(res.json.fileCount).to.equal(Object.keys(files).length);
    expect(res.json.checksum).to.match(/^[0-9a-f]{64}$/);

    const detail = await call(server, 'GET', `${API}/themes/packages/${res.json.id}`, { headers: m.headers });
    expect(detail.status, detail.text).to.equal(200);
    expect(ThemePackageDetailResponse.schema.validate(detail.json).error?.message).to.equal(undefined);
    expect(detail.json.files.map((f: { path: string }) => f.path)).to.deep.equal(Object.keys(files).sort());

    const download = await fetch(`${server.baseUrl}${API}/themes/packages/${res.json.id}/archive`, { headers: m.headers });
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-type')).to.equal('application/gzip');
    const unpacked = await untar(Buffer.from(await download.arrayBuffer()));
    expect(Object.fromEntries(unpacked)).to.deep.equal(files);

    // The same files as a zip: the same checksum.
    const again = await upload(themeZip(files), 'application/zip');
    expect(again.status, again.text).to.equal(201);
    expect(again.json.checksum).to.equal(res.json.checksum);

    const list = await call(server, 'GET', `${API}/themes/packages?storeId=${m.storeId}`, { headers: m.headers });
    expect(list.status).to.equal(200);
    expect(ThemePackageListResponse.schema.validate(list.json).error?.message).to.equal(undefined);
    expect(list.json.items.map((p: { id: string }) => p.id).slice(0, 2)).to.deep.equal([again.json.id, res.json.id]);
    expect(
      (await auditRows(server, m.owner.tenantId)).some((a) => a.action === 'theme_package.upload' && a.resource_id === res.json.id),
    ).to.equal(true);
  });

  describe('refuses bad archives with a clear 4xx and stores nothing', () => {
    const valid = minimalTheme('refused');
    const cases: Array<[string, () => Promise<Buffer> | Buffer, string, number, string]> = [
      [
        'a ../ traversal',
        () => tarGz([...Object.entries(valid).map(([name, content]) => ({ name, content })), { name: '../x.liquid', content: 'x' }]),
        'application/gzip',
        400,
        'theme_archive_path_invalid',
      ],
      [
        'a nested traversal',
        () => tarGz([{ name: 'snippets/../../etc/x', content: 'x' }]),
        'application/gzip',
        400,
        'theme_archive_path_invalid',
      ],
      ['an absolute path', () => tarGz([{ name: '/etc/x', content: 'x' }]), 'application/gzip', 400, 'theme_archive_path_invalid'],
      [
        'a symlink entry',
        () => tarGz([{ name: 'snippets/x.liquid', type: 'symlink', linkname: '/etc/passwd' }]),
        'application/gzip',
        400,
        'theme_archive_entry_forbidden',
      ],
      [
        'a hard link entry',
        () =>
          tarGz([
            { name: 'a.txt', content: 'a' },
            { name: 'snippets/x.liquid', type: 'link', linkname: 'a.txt' },
          ]),
        'application/gzip',
        400,
        'theme_archive_entry_forbidden',
      ],
      [
        'a device entry',
        () => tarGz([{ name: 'dev', type: 'character-device' }]),
        'application/gzip',
        400,
        'theme_archive_entry_forbidden',
      ],
      [
        'a duplicate path',
        () =>
          tarGz([
            { name: 'a.txt', content: 'a' },
            { name: './a.txt', content: 'b' },
          ]),
        'application/gzip',
        400,
        'theme_archive_duplicate_path',
      ],
      [
        'too many files',
        () => tarGz(Array.from({ length: 501 }, (_, i) => ({ name: `assets/f${i}.txt`, content: 'x' }))),
        'application/gzip',
        400,
        'theme_archive_too_many_files',
      ],
      [
        'a file over 2 MiB',
        () => tarGz([{ name: 'assets/big.txt', content: Buffer.alloc(2 * 1024 * 1024 + 1, 'a') }]),
        'application/gzip',
        413,
        'theme_archive_too_large',
      ],
      [
        'over 20 MiB unpacked',
        () => tarGz(Array.from({ length: 11 }, (_, i) => ({ name: `assets/f${i}.txt`, content: Buffer.alloc(2 * 1024 * 1024, 'a') }))),
        'application/gzip',
        413,
        'theme_archive_too_large',
      ],
      [
        'an archive over 10 MiB',
        () => Buffer.concat([zlib.gzipSync(Buffer.alloc(10)), Buffer.alloc(10 * 1024 * 1024)]),
        'application/gzip',
        413,
        'theme_archive_too_large',
      ],
      ['malformed gzip', () => Buffer.from('\x1f\x8bnot really gzip at all'), 'application/gzip', 400, 'theme_archive_malformed'],
      ['not gzip at all', () => Buffer.from('hello'), 'application/gzip', 400, 'theme_archive_malformed'],
      ['a truncated tar.gz', async () => (await themeTarGz(valid)).subarray(0, 60), 'application/gzip', 400, 'theme_archive_malformed'],
      ['an empty body', () => Buffer.alloc(0), 'application/gzip', 400, 'theme_archive_malformed'],
      ['a zip with a traversal', () => zip([{ name: '../x.liquid', content: 'x' }]), 'application/zip', 400, 'theme_archive_path_invalid'],
      ['a zip with an absolute path', () => zip([{ name: '/etc/x', content: 'x' }]), 'application/zip', 400, 'theme_archive_path_invalid'],
      [
        'a zip with a backslash path',
        () => zip([{ name: '..\\x.liquid', content: 'x' }]),
        'application/zip',
        400,
        'theme_archive_path_invalid',
      ],
      [
        'a zip with a symlink',
        () => zip([{ name: 'snippets/x.liquid', content: '/etc/passwd', mode: 0o120777 }]),
        'application/zip',
        400,
        'theme_archive_entry_forbidden',
      ],
      [
        'a zip with a duplicate',
        () =>
          zip([
            { name: 'a.txt', content: 'a' },
            { name: 'a.txt', content: 'b' },
          ]),
        'application/zip',
        400,
        'theme_archive_duplicate_path',
      ],
      [
        'a zip bomb',
        () => zip([{ name: 'assets/bomb.txt', content: Buffer.alloc(3 * 1024 * 1024, 0) }]),
        'application/zip',
        413,
        'theme_archive_too_large',
      ],
      ['a malformed zip', () => Buffer.from('PK\x03\x04 broken'), 'application/zip', 400, 'theme_archive_malformed'],
    ];
    for (const [name, build, type, status, code] of cases) {
      it(name, async () => {
        const before = await packageCount();
        const res = await upload(await build(), type);
        expectProblem(res, status, code);
        expect(res.json.detail).to.be.a('string').and.not.equal('');
        expect(await packageCount()).to.equal(before);
      });
    }

    it('another content type (415)', async () => {
      const res = await upload(await themeTarGz(valid), 'application/json');
      expectProblem(res, 415, 'unsupported_media_type');
    });

    it('a theme the validator refuses (422 with its findings)', async () => {
      const before = await packageCount();
      const bad = {
        ...valid,
        'sections/evil.liquid': `{{ section.settings.x | raw }}{% include '/etc/passwd' %}{% schema %}{"name":"E","settings":[{"id":"x","type":"text","label":"X"}]}{% endschema %}`,
      };
      delete (bad as Record<string, string>)['layout/theme.liquid'];
      const res = await upload(await themeTarGz(bad));
      expectProblem(res, 422, 'theme_package_invalid');
      const rules = res.json.findings.map((f: { rule: string }) => f.rule);
      expect(rules).to.include.members(['structure.missing-file', 'security.unescaped-setting', 'security.path-traversal']);
      expect(res.json.findings.every((f: { severity: string }) => f.severity === 'error')).to.equal(true);
      expect(await packageCount()).to.equal(before);
    });
  });

  it('publishes (activates) a package, switches to another and rolls back; owners and admins only', async () => {
    const one = (await upload(await themeTarGz(minimalTheme('one')))).json;
    const two = (await upload(await themeTarGz(minimalTheme('two')))).json;
    const staff = await addMember(server, m.owner, 'staff');
    expectProblem(await publish(one.id, staff.headers), 403, 'insufficient_role');
    const readKey = await apiKey(server, m, ['themes:read']);
    expectProblem(await publish(one.id, readKey), 403, 'insufficient_scope');

    const first = await publish(one.id);
    expect(first.status, first.text).to.equal(200);
    expect(first.json).to.include({ id: one.id, status: 'PUBLISHED', active: true });
    expect(first.json.publishedAt).to.be.a('string');

    const admin = await addMember(server, m.owner, 'admin');
    const second = await publish(two.id, admin.headers);
    expect(second.json).to.include({ status: 'PUBLISHED', active: true });
    const afterSwitch = await call(server, 'GET', `${API}/themes/packages/${one.id}`, { headers: m.headers });
    expect(afterSwitch.json).to.include({ status: 'PUBLISHED', active: false });

    const writeKey = await apiKey(server, m, ['themes:write', 'themes:read']);
    const rollback = await publish(one.id, writeKey);
    expect(rollback.status, rollback.text).to.equal(200);
    expect(rollback.json).to.include({ active: true });
    const active = await db('SELECT package_id FROM store_active_themes WHERE store_id = $1', [m.storeId]);
    expect(active).to.deep.equal([{ package_id: one.id }]);
    // Publishing the active one again changes nothing.
    expect((await publish(one.id)).json).to.include({ active: true, publishedAt: first.json.publishedAt });
  });

  it('keeps tenants and an API key’s other stores apart', async () => {
    const own = (await upload(await themeTarGz(minimalTheme('mine')))).json;
    const other = suite.addMerchant(await merchant(server));
    expectProblem(
      await upload(await themeTarGz(minimalTheme('x')), 'application/gzip', { headers: other.headers, storeId: m.storeId }),
      404,
      'store_not_found',
    );
    for (const path of [`/themes/packages/${own.id}`, `/themes/packages/${own.id}/archive`])
      expectProblem(await call(server, 'GET', `${API}${path}`, { headers: other.headers }), 404, 'theme_package_not_found');
    expectProblem(await publish(own.id, other.headers), 404, 'theme_package_not_found');
    const list = await call(server, 'GET', `${API}/themes/packages?storeId=${other.storeId}`, { headers: other.headers });
    expect(list.json.items).to.deep.equal([]);
    expect((await call(server, 'GET', `${API}/themes/packages?storeId=${m.storeId}`)).status).to.equal(401);
  });

  it('saves section settings checked against the active theme’s schema, rich text sanitised', async () => {
    const pkg = (await upload(await themeTarGz(minimalTheme('settings')))).json;
    await publish(pkg.id);
    const save = (body: Record<string, unknown>) =>
      call(server, 'PUT', `${API}/themes/section-settings`, {
        headers: m.headers,
        body: { storeId: m.storeId, template: 'index', sectionId: 'banner', ...body },
      });
    const ok = await save({
      settings: { color: '#ff0000', text: '<p>Hi<script>alert(1)</script></p>', items: [{ label: 'One' }], product: 'a-product' },
    });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.json.theme).to.equal(pkg.id);
    expect(ok.json.settings).to.deep.equal({ color: '#ff0000', text: '<p>Hi</p>', items: [{ label: 'One' }], product: 'a-product' });
    expectProblem(await save({ settings: { color: 'red' } }), 400, 'theme_settings_invalid');
    expectProblem(await save({ settings: { nope: 1 } }), 400, 'theme_settings_invalid');
    expectProblem(await save({ settings: { items: [{ other: 'x' }] } }), 400, 'theme_settings_invalid');
    expectProblem(await save({ sectionId: 'banner-2', settings: {} }), 404, 'theme_section_not_found');
    expectProblem(await save({ template: 'nope', settings: {} }), 404, 'theme_template_not_found');
    expectProblem(await save({ template: '../x', settings: {} }), 400, 'validation_failed');
    const listed = await call(server, 'GET', `${API}/themes/section-settings?storeId=${m.storeId}`, { headers: m.headers });
    expect(listed.json.items).to.have.length(1);
    const pub = await call(server, 'GET', `${API}/themes/public/stores/${m.storeId}/active`);
    expect(pub.status, pub.text).to.equal(200);
    expect(pub.json.package.id).to.equal(pkg.id);
    expect(pub.json.sectionSettings[0].settings.color).to.equal('#ff0000');
  });

  it('serves only published packages’ source and assets publicly', async () => {
    const draft = (await upload(await themeTarGz(minimalTheme('draft-only')))).json;
    expectProblem(
      await call(server, 'GET', `${API}/themes/public/stores/${m.storeId}/packages/${draft.id}/source`),
      404,
      'theme_package_not_found',
    );
    await publish(draft.id);
    const source = await call(server, 'GET', `${API}/themes/public/stores/${m.storeId}/packages/${draft.id}/source`);
    expect(source.status, source.text).to.equal(200);
    const css = source.json.files.find((f: { path: string }) => f.path === 'assets/theme.css');
    expect(css.content).to.equal(null);
    const asset = await fetch(`${server.baseUrl}${API}/themes/public/stores/${m.storeId}/assets/${css.sha256}`);
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('content-type')).to.match(/^text\/css/);
    expect(asset.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(await asset.text()).to.contain('draft-only');
  });
});
