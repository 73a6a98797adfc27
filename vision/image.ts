/**
 * Image bytes → the model's input: the format is sniffed from the bytes (never trusted from a
 * Content-Type), the pixel count is checked before decoding (decompression bombs), then sharp
 * applies the EXIF orientation, flattens transparency onto white, converts to sRGB and resizes to
 * the model's square input (centre crop), returning raw RGB.
 */
import sharp from 'sharp';

export type ImageFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'tiff';

export type ImageErrorReason = 'not_an_image' | 'too_many_pixels' | 'undecodable';

export class ImageError extends Error {
  constructor(
    readonly reason: ImageErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'ImageError';
  }
}

/** The image format from the first bytes, or undefined when they are not an image we accept. */
export function sniffImageFormat(bytes: Buffer): ImageFormat | undefined {
  if (bytes.length < 12) return undefined;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  const ascii = (from: number, to: number): string => bytes.subarray(from, to).toString('latin1');
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return 'gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  if (ascii(4, 8) === 'ftyp' && ['avif', 'avis'].includes(ascii(8, 12))) return 'avif';
  if (ascii(0, 4) === 'II*\u0000' || ascii(0, 4) === 'MM\u0000*') return 'tiff';
  return undefined;
}

export interface PreparedImage {
  /** Raw RGB, size × size × 3 bytes. */
  data: Buffer;
  size: number;
  /** Original dimensions. */
  width: number;
  height: number;
  format: ImageFormat;
}

export interface PrepareOptions {
  size: number;
  maxPixels: number;
}

/** Sniffs, checks and normalises an image for a model with a `size`×`size` RGB input. Throws ImageError. */
export async function prepareImage(bytes: Buffer, options: PrepareOptions): Promise<PreparedImage> {
  const format = sniffImageFormat(bytes);
  if (!format) throw new ImageError('not_an_image', 'The content is not a JPEG, PNG, GIF, WebP, AVIF or TIFF image.');
  let width: number;
  let height: number;
  try {
    const meta = await sharp(bytes, { limitInputPixels: false, pages: 1 }).metadata();
    width = meta.width ?? 0;
    height = meta.height ?? 0;
  } catch {
    throw new ImageError('undecodable', `The ${format} image could not be read.`);
  }
  if (width <= 0 || height <= 0) throw new ImageError('undecodable', `The ${format} image has no dimensions.`);
  if (width * height > options.maxPixels)
    throw new ImageError('too_many_pixels', `The image has ${width}×${height} pixels, more than the limit of ${options.maxPixels}.`);
  try {
    const data = await sharp(bytes, { limitInputPixels: options.maxPixels, pages: 1, failOn: 'error' })
      .rotate()
      .flatten({ background: { r: 255, g: 255, b: 255 } })
      .toColourspace('srgb')
      .resize(options.size, options.size, { fit: 'cover', position: 'centre', kernel: 'lanczos3' })
      .removeAlpha()
      .raw()
      .toBuffer();
    if (data.length !== options.size * options.size * 3) throw new Error(`unexpected raw size ${data.length}`);
    return { data, size: options.size, width, height, format };
  } catch (error) {
    if (error instanceof ImageError) throw error;
    const message = (error as Error).message ?? String(error);
    if (/pixel limit/i.test(message))
      throw new ImageError('too_many_pixels', `The image has more pixels than the limit of ${options.maxPixels}.`);
    throw new ImageError('undecodable', `The ${format} image could not be decoded.`);
  }
}
