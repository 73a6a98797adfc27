/**
 * `npm run bench:vision-photos -- --out <dir> [--no-stamps]`: rebuilds the labelled product photos of
 * the visual relevance benchmark (docs/benchmarks.md, "Visual relevance") outside the repository,
 * from two published packages, each checked against its pinned digest:
 *
 * - `store/`: the 54 product photos of the demo catalogue in the npm package @vendure/create 3.7.3
 *   (assets/images, photographs published under the Unsplash License; photographer and photo id in
 *   each file name), labelled with the categories of the package's assets/products.csv
 *   (Electronics › Computers | Photo, Sports & Outdoor › Equipment | Footwear, Home & Garden ›
 *   Furniture | Plants). Scenes with backgrounds, as a shop's lifestyle photos are.
 * - `stamps/`: 39 cut-out photographs of objects on transparent backgrounds (kitchenware, hand tools,
 *   musical instruments, balls and rackets, a camera and binoculars) from the Debian package
 *   tuxpaint-stamps-default 2022.06.04-1 (GPL-2), labelled here in the same category tree: packshots.
 *
 * Writes labels.csv (all photos), labels-store.csv and labels-stamps.csv (columns file, category,
 * subcategory, name, source, licence; `file` relative to <dir>) and a README.md naming the sources.
 * Needs `npm` (the package registry) and, for the stamps, `apt-get` and `dpkg-deb` (Debian's
 * packages); --no-stamps builds the store photos alone.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { log, parseFlags } from './common';

const STORE_PACKAGE = '@vendure/create@3.7.3';
const STORE_SHA512 = 'sha512-8gqMan5X8rBgwXBPd2kco7GDJ70iHmXIlhfDbeS05D7JgsaC7Sc+dsUptQnpg33aPocT92Ejq3ZD5TKGKdzGRw==';
const STAMPS_PACKAGE = 'tuxpaint-stamps-default=2022.06.04-1';
const STAMPS_SHA256 = '6db6c1bfc870a47f1499d6203b083522eacb57c5f9c87d468f2e92eb6d9d5f34';
const STAMPS_DIR = 'usr/share/tuxpaint/stamps';

/**
 * The stamps kept: photographs of things a shop sells (the drawings, animals, signs and scenery of the
 * package are left out), by path under /usr/share/tuxpaint/stamps, with their category and subcategory.
 */
const STAMPS: Array<[string, string, string]> = [
  ['household/dishes/teapot.png', 'Home & Garden', 'Kitchen'],
  ['household/dishes/mug.png', 'Home & Garden', 'Kitchen'],
  ['household/dishes/glass.png', 'Home & Garden', 'Kitchen'],
  ['household/dishes/pitcher_small.png', 'Home & Garden', 'Kitchen'],
  ['household/kettle.png', 'Home & Garden', 'Kitchen'],
  ['household/dishes/utensils/pepper_grinder.png', 'Home & Garden', 'Kitchen'],
  ['household/dishes/utensils/nutcracker.png', 'Home & Garden', 'Kitchen'],
  ['household/tools/hammer.png', 'Home & Garden', 'Tools'],
  ['household/tools/saw.png', 'Home & Garden', 'Tools'],
  ['household/tools/wrench.png', 'Home & Garden', 'Tools'],
  ['household/tools/wrench_adjustable.png', 'Home & Garden', 'Tools'],
  ['household/tools/wrench_plumbers.png', 'Home & Garden', 'Tools'],
  ['household/tools/plyers.png', 'Home & Garden', 'Tools'],
  ['household/tools/mallet_metal.png', 'Home & Garden', 'Tools'],
  ['household/tools/measuring_tape.png', 'Home & Garden', 'Tools'],
  ['household/tools/toolbox.png', 'Home & Garden', 'Tools'],
  ['household/tools/spade.png', 'Home & Garden', 'Tools'],
  ['household/tools/paintbrush_large.png', 'Home & Garden', 'Tools'],
  ['household/arttools/scissors_small_open.png', 'Home & Garden', 'Tools'],
  ['hobbies/music/brass/trumpet.png', 'Music', 'Instruments'],
  ['hobbies/music/percussion/cymbal_crash.png', 'Music', 'Instruments'],
  ['hobbies/music/percussion/drum_tomtom_floor.png', 'Music', 'Instruments'],
  ['hobbies/music/percussion/drumkit.png', 'Music', 'Instruments'],
  ['hobbies/music/string/cello.png', 'Music', 'Instruments'],
  ['hobbies/music/string/guitar2.png', 'Music', 'Instruments'],
  ['hobbies/music/string/guitar_classical.png', 'Music', 'Instruments'],
  ['hobbies/music/string/guitar_electric.png', 'Music', 'Instruments'],
  ['hobbies/music/string/guitar_electric_bass.png', 'Music', 'Instruments'],
  ['hobbies/music/string/violin.png', 'Music', 'Instruments'],
  ['hobbies/music/wind/bassoon.png', 'Music', 'Instruments'],
  ['sports/basketball.png', 'Sports & Outdoor', 'Equipment'],
  ['sports/cricketball.png', 'Sports & Outdoor', 'Equipment'],
  ['sports/football.png', 'Sports & Outdoor', 'Equipment'],
  ['sports/soccer.png', 'Sports & Outdoor', 'Equipment'],
  ['sports/tennis_ball.png', 'Sports & Outdoor', 'Equipment'],
  ['sports/tennis_racket.png', 'Sports & Outdoor', 'Equipment'],
  ['sports/australian_rules_football.png', 'Sports & Outdoor', 'Equipment'],
  ['hobbies/camera_35mm.png', 'Electronics', 'Photo'],
  ['hobbies/binoculars.png', 'Electronics', 'Photo'],
];

interface Row {
  file: string;
  category: string;
  subcategory: string;
  name: string;
  source: string;
  licence: string;
}

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 2, 'inherit'] });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

function digest(file: string, algorithm: 'sha256' | 'sha512', encoding: 'hex' | 'base64'): string {
  return createHash(algorithm).update(fs.readFileSync(file)).digest(encoding);
}

/** "derick-david-409858-unsplash.jpg" → "Derick David, Unsplash photo 409858". */
function unsplashCredit(file: string): string {
  const match = /^(.*)-([0-9]+)-unsplash\.jpg$/.exec(file);
  if (!match) return 'Unsplash';
  const name = match[1]!
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
  return `${name}, Unsplash photo ${match[2]}`;
}

function buildStore(work: string, out: string): Row[] {
  log(`fetching ${STORE_PACKAGE}`);
  run('npm', ['pack', STORE_PACKAGE, '--pack-destination', work, '--silent'], work);
  const tarball = fs.readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${STORE_PACKAGE} left no tarball`);
  const integrity = `sha512-${digest(path.join(work, tarball), 'sha512', 'base64')}`;
  if (integrity !== STORE_SHA512) throw new Error(`${tarball}: digest ${integrity}, expected ${STORE_SHA512}`);
  run('tar', ['xzf', tarball], work);
  const assets = path.join(work, 'package', 'assets');
  const records = parse(fs.readFileSync(path.join(assets, 'products.csv'), 'utf8'), { columns: true, trim: true }) as Array<
    Record<string, string>
  >;
  fs.mkdirSync(path.join(out, 'store'), { recursive: true });
  const rows: Row[] = [];
  // Rows without a name are further variants of the product above.
  for (const record of records.filter((r) => r.name)) {
    const image = record.assets!.split('|')[0]!;
    const [category, subcategory] = record
      .facets!.split('|')
      .filter((f) => f.startsWith('category:'))
      .map((f) => f.slice('category:'.length));
    if (!category || !subcategory) throw new Error(`${record.name}: no category and subcategory in ${record.facets}`);
    fs.copyFileSync(path.join(assets, 'images', image), path.join(out, 'store', image));
    rows.push({
      file: `store/${image}`,
      category,
      subcategory,
      name: record.name!,
      source: `${STORE_PACKAGE} assets/images/${image}`,
      licence: `Unsplash License (${unsplashCredit(image)})`,
    });
  }
  return rows;
}

function buildStamps(work: string, out: string): Row[] {
  log(`fetching ${STAMPS_PACKAGE}`);
  run('apt-get', ['download', STAMPS_PACKAGE], work);
  const deb = fs.readdirSync(work).find((f) => f.startsWith('tuxpaint-stamps-default_') && f.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${STAMPS_PACKAGE} left no package`);
  const sha256 = digest(path.join(work, deb), 'sha256', 'hex');
  if (sha256 !== STAMPS_SHA256) throw new Error(`${deb}: SHA-256 ${sha256}, expected ${STAMPS_SHA256}`);
  run('dpkg-deb', ['-x', deb, 'stamps'], work);
  fs.mkdirSync(path.join(out, 'stamps'), { recursive: true });
  return STAMPS.map(([stamp, category, subcategory]) => {
    const file = `stamps/${stamp.replaceAll('/', '-')}`;
    fs.copyFileSync(path.join(work, 'stamps', STAMPS_DIR, stamp), path.join(out, file));
    return {
      file,
      category,
      subcategory,
      name: path.basename(stamp, '.png').replaceAll('_', ' '),
      source: `Debian ${STAMPS_PACKAGE} /${STAMPS_DIR}/${stamp}`,
      licence: 'GPL-2 (the package’s debian/copyright)',
    };
  });
}

const README = (store: number, stamps: number): string => `# Labelled product photos for \`npm run bench:vision-quality\`

Rebuilt by \`npm run bench:vision-photos -- --out <this folder>\` (scripts/bench/vision-photos.ts); do not edit by hand.

- \`store/\` (${store} photos): the demo catalogue photos of the npm package ${STORE_PACKAGE}
  (assets/images), photographs published under the Unsplash License (free to use, no permission
  needed; photographer and Unsplash photo id in each file name and in the licence column), labelled
  with the categories of the package's assets/products.csv.
- \`stamps/\` (${stamps} photos): cut-out photographs of objects from the Debian package
  ${STAMPS_PACKAGE} (GPL-2, per its debian/copyright), labelled by hand in the same category tree.

Label files: \`labels.csv\` (all), \`labels-store.csv\`, \`labels-stamps.csv\`; columns file, category,
subcategory, name, source, licence. Run the benchmark with \`--images <this folder> --labels <one of them>\`.
`;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), ['no-stamps']);
  for (const name of flags.keys())
    if (!['out', 'no-stamps'].includes(name)) throw new Error(`unknown option --${name} (known: --out, --no-stamps)`);
  const out = flags.get('out');
  if (!out) throw new Error('give the folder to write: --out <dir> (outside the repository, e.g. /work/vision-photos)');
  fs.mkdirSync(out, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vision-photos-'));
  try {
    const storeWork = path.join(work, 'store');
    fs.mkdirSync(storeWork);
    const store = buildStore(storeWork, out);
    let stamps: Row[] = [];
    if (!flags.has('no-stamps')) {
      const stampsWork = path.join(work, 'stamps-package');
      fs.mkdirSync(stampsWork);
      stamps = buildStamps(stampsWork, out);
    }
    const write = (name: string, rows: Row[]) => fs.writeFileSync(path.join(out, name), stringify(rows, { header: true }));
    write('labels-store.csv', store);
    if (stamps.length > 0) write('labels-stamps.csv', stamps);
    write('labels.csv', [...store, ...stamps]);
    fs.writeFileSync(path.join(out, 'README.md'), README(store.length, stamps.length));
    log(`${store.length + stamps.length} photos in ${out}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench:vision-photos: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
