/**
 * The altered copies of bench:vision-quality (docs/benchmarks.md, "Visual relevance"): what a shopper's
 * photo of the same product might look like: a crop, a mirror image, a darker copy, a recompressed JPEG
 * and a slight rotation. Shared by the benchmarks that query with altered photos, so their figures
 * come from the same copies.
 */
import sharp from 'sharp';

/** The photo as displayed: EXIF orientation applied, transparency flattened onto white (as vision/image.ts does). */
export const upright = (bytes: Buffer) =>
  sharp(bytes)
    .rotate()
    .flatten({ background: { r: 255, g: 255, b: 255 } });

/** What a shopper's photo of the same product might look like; deterministic (the same bytes in, the same bytes out). */
export const ALTERATIONS: Record<string, (bytes: Buffer) => Promise<Buffer>> = {
  /** 80 % of each side, off centre (from 15 % left, 5 % top). */
  crop: async (bytes) => {
    const { data, info } = await upright(bytes).png().toBuffer({ resolveWithObject: true });
    return sharp(data)
      .extract({
        left: Math.round(info.width * 0.15),
        top: Math.round(info.height * 0.05),
        width: Math.round(info.width * 0.8),
        height: Math.round(info.height * 0.8),
      })
      .jpeg({ quality: 90 })
      .toBuffer();
  },
  /** Mirror image (left–right). */
  flip: (bytes) => upright(bytes).flop().jpeg({ quality: 90 }).toBuffer(),
  /** 60 % of the brightness. */
  darken: (bytes) => upright(bytes).modulate({ brightness: 0.6 }).jpeg({ quality: 90 }).toBuffer(),
  /** 640 px wide, JPEG quality 40: a photo as a messaging app passes it on. */
  jpeg: (bytes) => upright(bytes).resize({ width: 640 }).jpeg({ quality: 40 }).toBuffer(),
  /** 8° clockwise, the corners filled white. */
  rotate: (bytes) =>
    upright(bytes)
      .rotate(8, { background: { r: 255, g: 255, b: 255 } })
      .jpeg({ quality: 90 })
      .toBuffer(),
};
