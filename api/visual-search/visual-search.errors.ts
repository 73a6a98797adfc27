/**
 * The error codes of the visual-search area: each code once, with its HTTP status and what it
 * means. Throw sites use `visualSearchError(code, detail, errors)`; the API reference lists the
 * codes (api/error-codes.ts).
 */
import { defineErrorCodes } from '../../lib/errors';

export const VISUAL_SEARCH_ERRORS = defineErrorCodes('visual-search', {
  visual_search_disabled: { status: 409, description: 'Visual search is disabled for this store; enable it in its settings.' },
  model_unavailable: { status: 400, description: 'The model cannot be used on this server (not installed, or it failed to load).' },
  product_not_found: { status: 404, description: 'A product does not exist in this store.' },
  visual_index_not_ready: {
    status: 409,
    description: "The store's image index is being rebuilt (visual search was just enabled or its model changed); try again shortly.",
  },
  product_image_not_indexed: { status: 409, description: "The product's image is not indexed yet, or it has no image." },
  calibration_unavailable: {
    status: 409,
    description: 'The store has fewer than two indexed product images (or only copies of one photo) to calibrate scores against.',
  },
  image_required: { status: 400, description: 'A query needs an image (upload or base64), an imageUrl, or text.' },
  text_queries_unavailable: { status: 400, description: "Text queries need the clip model; the store's model embeds images only." },
  image_url_not_allowed: {
    status: 400,
    description: 'The image URL is refused: not http(s), with credentials, or resolving to a non-public address (also after redirects).',
  },
  image_too_large: { status: 400, description: 'The image at the URL is larger than the size limit.' },
  image_fetch_failed: { status: 400, description: 'The image at the URL could not be fetched (unreachable, timeout, error status).' },
  not_an_image: [
    { status: 400, description: 'The image URL or the base64 image is not an image (or is empty).' },
    { status: 415, description: 'The uploaded file is not an image.' },
  ],
  image_too_many_pixels: [
    { status: 400, description: 'The image at the URL has more pixels than the limit.' },
    { status: 413, description: 'The uploaded image has more pixels than the limit.' },
  ],
  image_undecodable: { status: 400, description: 'The image cannot be decoded.' },
});

export const visualSearchError = VISUAL_SEARCH_ERRORS.error;
