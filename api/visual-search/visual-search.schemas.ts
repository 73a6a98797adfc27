/** DTOs of the visual search area (docs/search.md, "Visual search"). */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, httpUrl, int, money, number, oneOf, positiveInt, text, uuid } from '../http/schema-types';

export const VISUAL_MODELS = ['mobilenet-v2', 'clip'] as const;
export const SAME_CATEGORY = ['prefer', 'require', 'ignore'] as const;
export const SIMILAR_TIERS = ['same_category', 'sibling_category', 'other'] as const;

const MIN_SIMILARITY_NOTE =
  'Results below it are left out. Read on the calibrated scale (calibratedScore, 0 to 1; 0.5 = the good-match threshold, so 0.5 keeps only good matches) once the store is calibrated, and against the raw score until then. Default 0.';
const SAME_CATEGORY_NOTE =
  'How similar-product reads use the category tree: prefer (default) ranks products of the same category (or below it) first, then sibling categories (elsewhere under the same parent category), then the rest, each by similarity with the same brand and then shared attributes breaking ties; require answers only products of the same category (an empty list when there are none, never other categories); ignore ranks by similarity alone. Query by image is not affected.';
export const MAX_RESULTS_LIMIT = 100;
export const INDEX_IDS_MAX = 1000;
export const QUERY_TEXT_MAX = 200;

export const VisualSearchSettingsDto = typedDto(
  'VisualSearchSettingsDto',
  t
    .object({
      enabled: t.boolean(
        Joi.boolean().description('Turns visual search on or off for the store. Turning it on queues every product image for embedding.'),
      ),
      model: t.oneOf(VISUAL_MODELS, (s) =>
        s.description(
          "mobilenet-v2 (default; 1280-d MobileNetV2 image features, always available) or clip (a CLIP model installed on the server, VISION_CLIP_MODEL_DIR; also matches text). Changing the model re-embeds every product image of the store; until then the store's results come from the images already done.",
        ),
      ),
      minSimilarity: t.number(number(0, 1).precision(4).description(MIN_SIMILARITY_NOTE)),
      maxResults: t.number(positiveInt(MAX_RESULTS_LIMIT).description('Most results a query returns, 1 to 100. Default 20.')),
      sameCategory: t.oneOf(SAME_CATEGORY, (s) => s.description(SAME_CATEGORY_NOTE)),
    })
    .rules((o) => o.min(1).description('Fields left out keep their value. A store without settings has visual search disabled.')),
);

export const VisualSearchSettingsResponse = dto(
  'VisualSearchSettingsResponse',
  Joi.object({
    storeId: uuid().required(),
    enabled: Joi.boolean().required(),
    model: oneOf(VISUAL_MODELS).required(),
    dimensions: int(1).required().description("Length of the model's vectors."),
    textQueries: Joi.boolean().required().description('Whether the model also embeds text, so `text` queries work (CLIP).'),
    minSimilarity: number(0, 1).required().description(MIN_SIMILARITY_NOTE),
    maxResults: positiveInt(MAX_RESULTS_LIMIT).required(),
    sameCategory: oneOf(SAME_CATEGORY).required().description(SAME_CATEGORY_NOTE),
    updatedAt: dateTime().required(),
  }),
);

const Calibration = Joi.object({
  model: oneOf(VISUAL_MODELS).required().description('The model it was measured with; a calibration of another model is not applied.'),
  dimensions: int(1).required(),
  vectors: int(2).required().description("The store's vectors of the model when it was measured."),
  sampleSize: int(1)
    .required()
    .description('Products whose nearest neighbour (most similar other product) was measured: all of them up to 64, at most 256.'),
  goodMatchScore: number(0, 1)
    .required()
    .description(
      "The raw score from which a hit is a good match (calibratedScore 0.5): the 99th percentile of the products' nearest-neighbour scores (the largest one under 100 products) plus 0.0001.",
    ),
  knots: Joi.array()
    .items(Joi.number())
    .length(51)
    .required()
    .description(
      'knots[k] is the raw score that calibrates to k / 100 (k = 0 to 50); between knots the mapping is linear, above the last it rises linearly to 1 at a raw score of 1.',
    ),
  computedAt: dateTime().required(),
  stale: Joi.boolean()
    .required()
    .description(
      "The store's vectors changed by a tenth or more since (or the model changed): the vision worker measures it again once indexing settles; it is applied meanwhile if the model is the same.",
    ),
});

export const CalibrationResponse = dto('CalibrationResponse', Calibration);

export const IndexProductDto = dto(
  'IndexProductDto',
  Joi.object({
    productIds: Joi.array()
      .items(uuid())
      .min(1)
      .max(INDEX_IDS_MAX)
      .unique()
      .description('Products to (re)index, 1 to 1000; left out: every product of the store.'),
    force: Joi.boolean()
      .default(false)
      .description('Embed again even when a vector of the same image and model is stored (the image changed behind the same URL).'),
  }).description('An empty object indexes every product of the store, reusing stored vectors.'),
);

export const IndexRequestResponse = dto(
  'IndexRequestResponse',
  Joi.object({
    storeId: uuid().required(),
    queued: int(0).required().description('Products queued for the vision worker.'),
    model: oneOf(VISUAL_MODELS).required(),
  }),
);

const Failure = Joi.object({
  productId: uuid().required(),
  imageUrl: Joi.string().allow(null).required(),
  reason: Joi.string()
    .required()
    .description(
      '`<code>: <explanation>`; codes: not_an_image, too_many_pixels, undecodable, too_large, address_not_allowed, scheme_not_allowed, http_status, timeout, network, dns_failed, too_many_redirects, invalid_url.',
    ),
  attempts: int(1).required(),
  updatedAt: dateTime().required(),
});

export const IndexStatusResponse = dto(
  'IndexStatusResponse',
  Joi.object({
    storeId: uuid().required(),
    enabled: Joi.boolean().required(),
    model: oneOf(VISUAL_MODELS).required(),
    dimensions: int(1).required(),
    counts: Joi.object({
      products: int(0).required().description('Products of the store.'),
      withImage: int(0).required().description('Products that have an image.'),
      indexed: int(0).required().description('Images embedded with the current model.'),
      pending: int(0).required().description('Images waiting for the worker (queued, or stored for another model).'),
      failed: int(0).required(),
    }).required(),
    failures: Joi.array().items(Failure).max(50).required().description('The 50 most recent failures.'),
    lastRequestedAt: dateTime().allow(null).required().description('When indexing was last requested (settings or index operation).'),
    lastIndexedAt: dateTime().allow(null).required().description('When the worker last finished an image of the store.'),
    sameCategory: oneOf(SAME_CATEGORY).required(),
    calibration: Calibration.allow(null)
      .required()
      .description('The score calibration of the store (see POST …/calibration); null until it has been measured.'),
  }),
);

export const ClearIndexResponse = dto(
  'ClearIndexResponse',
  Joi.object({
    storeId: uuid().required(),
    cleared: int(0).required().description('Vectors removed.'),
  }),
);

export const QueryByImageDto = typedDto(
  'QueryByImageDto',
  t
    .object({
      image: t.string(
        Joi.string()
          .base64({ paddingRequired: false })
          .description(
            'The image, base64-encoded (JSON bodies; at most the JSON body limit, 1 MB by default). With multipart/form-data send it as the file part `image` instead (up to VISION_UPLOAD_MAX_BYTES, 8 MB by default). JPEG, PNG, GIF, WebP, AVIF or TIFF, sniffed from the bytes.',
          ),
      ),
      imageUrl: t.string(
        httpUrl().description('An http(s) URL of the image, fetched by the server: public addresses only, at most VISION_FETCH_MAX_BYTES.'),
      ),
      text: t.string(text(1, QUERY_TEXT_MAX).trim().description('Words to match against product photos; only with the clip model.')),
      categoryId: t.string(uuid().description('Only products in this category or below it.')),
      brandId: t.string(uuid()),
      minPrice: t.number(
        money().description('Ignored by the public query when the store does not show prices to this visitor (see ignoredParams).'),
      ),
      maxPrice: t.number(
        money().description('Ignored by the public query when the store does not show prices to this visitor (see ignoredParams).'),
      ),
      inStock: t.boolean(Joi.boolean().description('true: only products with stock.')),
      limit: t.number(positiveInt(MAX_RESULTS_LIMIT).description("At most this many results, and never more than the store's maxResults.")),
    })
    .rules((o) =>
      o
        .oxor('image', 'imageUrl', 'text')
        .description(
          'Exactly one of image (or the multipart file), imageUrl or text. The image is used for this query only and never stored.',
        ),
    ),
);

const PRICE_NOTE =
  'Always present in the merchant query; left out of the public query when the store does not show prices to this visitor (price visibility).';

const ResultItem = Joi.object({
  id: uuid().required(),
  title: Joi.string().required(),
  slug: Joi.string().required(),
  status: oneOf(['DRAFT', 'PUBLISHED', 'ARCHIVED']).required(),
  price: Joi.number().description(`${PRICE_NOTE}`),
  currency: Joi.string().description(`${PRICE_NOTE}`),
  imageUrl: Joi.string().allow(null).required(),
  inStock: Joi.boolean().required(),
  score: number(0, 1)
    .required()
    .description(
      'The raw similarity, 0 to 1: (1 + cosine) / 2 of the two image vectors; 1 is the same image. Its meaning depends on the model and the store; order is by it.',
    ),
  calibratedScore: number(0, 1)
    .allow(null)
    .required()
    .description(
      "The raw score calibrated against the store's own products (0 to 1): below 0.5, half the score's rank among the store's nearest-neighbour scores (about 0.25 at their median); 0.5 at the good-match threshold; rising linearly to 1 for the same image. null while the store is not calibrated (calibrated false).",
    ),
  goodMatch: Joi.boolean()
    .required()
    .description(
      "The hit scores at or above the store's good-match threshold (calibratedScore ≥ 0.5): more similar to the query than 99 % of the store's products are to their most similar other product, as the same product photographed again or altered is. Before the store is calibrated, only for the same photo (score ≥ 0.9995).",
    ),
  tier: oneOf(SIMILAR_TIERS).description(
    'Similar-product reads only: same_category (a category of the product, or below it), sibling_category (elsewhere under the parent of one of its categories), other.',
  ),
});

export const VisualSearchResults = dto(
  'VisualSearchResults',
  Joi.object({
    items: Joi.array().items(ResultItem).required().description('Most similar first.'),
    model: oneOf(VISUAL_MODELS).required(),
    calibrated: Joi.boolean()
      .required()
      .description(
        "Whether the store's score calibration for its model was applied (calibratedScore, goodMatch, and minSimilarity on the calibrated scale).",
      ),
    sameCategory: oneOf(SAME_CATEGORY).description('Similar-product reads only: the ranking applied (the store setting).'),
    tookMs: int(0).required(),
    pricesShown: Joi.boolean().description(
      "Public reads only: whether this visitor may see the store's prices (price visibility); when false, price and currency are left out of every item.",
    ),
    ignoredParams: Joi.array()
      .items(Joi.string().valid('minPrice', 'maxPrice'))
      .description(
        'Public query only: filters that were sent but not applied (minPrice, maxPrice when pricesShown is false). Empty otherwise.',
      ),
  }),
);
