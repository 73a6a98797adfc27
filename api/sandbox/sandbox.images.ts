/**
 * The seed products' images: one 256×256 PNG per product, drawn with sharp from a small SVG (the
 * product's colours and a shape), so they are the same in every process and cost nothing to store.
 * Served by the public operation GET /sandbox/images/{n}; rendered once per process and kept.
 */
import sharp from 'sharp';
import { seedData, type SeedProduct } from './sandbox.seed';

const SIZE = 256;
const rendered = new Map<number, Promise<Buffer>>();

function shapeSvg(image: SeedProduct['image']): string {
  const c = SIZE / 2;
  switch (image.shape) {
    case 'circle':
      return `<circle cx="${c}" cy="${c}" r="80" fill="${image.foreground}"/>`;
    case 'square':
      return `<rect x="58" y="58" width="140" height="140" rx="12" fill="${image.foreground}"/>`;
    case 'triangle':
      return `<polygon points="${c},40 220,210 36,210" fill="${image.foreground}"/>`;
    case 'diamond':
      return `<polygon points="${c},30 226,${c} ${c},226 30,${c}" fill="${image.foreground}"/>`;
    default:
      return [0, 1, 2, 3, 4].map((i) => `<rect x="0" y="${20 + i * 48}" width="${SIZE}" height="24" fill="${image.foreground}"/>`).join('');
  }
}

/** The PNG of seed product `index` (0-based), or undefined when there is no such product. */
export function seedImagePng(index: number): Promise<Buffer> | undefined {
  const product = seedData().products[index];
  if (!product) return undefined;
  let png = rendered.get(index);
  if (!png) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}"><rect width="${SIZE}" height="${SIZE}" fill="${product.image.background}"/>${shapeSvg(product.image)}</svg>`;
    png = sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
    png.catch(() => rendered.delete(index));
    rendered.set(index, png);
  }
  return png;
}

/** Path (under /api/v1) of seed product `index`'s image; numbered from 1. */
export const seedImagePath = (index: number): string => `/api/v1/sandbox/images/${index + 1}`;
