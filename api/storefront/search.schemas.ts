/** Responses of the public search and suggest (docs/search.md, "Public search and suggest"). */
import Joi from 'joi';
import { dto } from '../http/route';

const PRICE_NOTE = 'Left out when the store does not show prices to this visitor (price visibility).';

const named = (label: string): Joi.ObjectSchema =>
  Joi.object({ id: Joi.string().uuid().required(), name: Joi.string().allow(null).required() })
    .allow(null)
    .label(label);

const SearchItem = Joi.object({
  id: Joi.string().uuid().required(),
  slug: Joi.string().required(),
  title: Joi.string().required().description('In the requested locale when the product has a translation.'),
  type: Joi.string().required(),
  brand: named('SearchItemBrand').required(),
  vendor: named('SearchItemVendor').required(),
  currency: Joi.string().description(PRICE_NOTE),
  price: Joi.number().description(`The effective price. ${PRICE_NOTE}`),
  compareAtPrice: Joi.number().allow(null).description(PRICE_NOTE),
  discountPercent: Joi.number().integer().description(`Whole percent saved against the compare-at price. ${PRICE_NOTE}`),
  discounted: Joi.boolean().required(),
  inStock: Joi.boolean().required(),
  rating: Joi.number().required(),
  reviewCount: Joi.number().integer().required(),
  imageUrl: Joi.string().allow(null).required(),
  badge: Joi.string()
    .valid('FLASH_SALE')
    .allow(null)
    .required()
    .description('FLASH_SALE while a running flash-sale campaign sets the price; null otherwise.'),
  flashSaleEndsAt: Joi.string()
    .allow(null)
    .required()
    .description('When the running flash sale ends (ISO 8601), for a countdown; null without one.'),
  sponsored: Joi.boolean()
    .required()
    .description('true in the marked sponsored slots; send clicks on them to POST /storefront/sponsored-listings/click.'),
  sponsoredListingId: Joi.string().uuid().description('The listing behind a sponsored slot.'),
  fullMatch: Joi.boolean()
    .required()
    .description(
      'true when the product contains every word of the query (always without words); false for the products of a looser reading and for the partial matches that fill a short first page.',
    ),
}).label('PublicSearchItem');

const FacetValue = Joi.object({
  value: Joi.string()
    .required()
    .description('What to send back as the filter: an id, `name:value`, `true`/`false`, a type, or whole stars for rating (as minRating).'),
  label: Joi.string().required(),
  count: Joi.number()
    .integer()
    .required()
    .description("Matching products if this value were chosen together with the other facets' selections (disjunctive)."),
  selected: Joi.boolean().required(),
}).label('PublicSearchFacetValue');

const Facet = Joi.object({
  key: Joi.string()
    .required()
    .description(
      'The facet key of the filter configuration: category, brand, vendor, type, price, rating, inStock, discounted, option:<name>, attr:<name>.',
    ),
  label: Joi.string().required(),
  display: Joi.string().required(),
  values: Joi.array().items(FacetValue).required().description('Most frequent first. Rating: cumulative "N stars & up" counts.'),
  stats: Joi.object({ min: Joi.number().required(), max: Joi.number().required() })
    .allow(null)
    .description('Price only: lowest and highest price of the matching products, ignoring the price selection.'),
  buckets: Joi.array()
    .items(
      Joi.object({
        min: Joi.number().required(),
        max: Joi.number().allow(null).required(),
        label: Joi.string().required(),
        count: Joi.number()
          .integer()
          .description(
            'Matching products in the bucket under every selection except the price range (0 possible; the storefront offers no link then).',
          ),
        selected: Joi.boolean().required(),
      }).label('PublicSearchPriceBucket'),
    )
    .description(
      "Price only: the store's price buckets, ascending (min inclusive, max exclusive, the last may have max null): the merchant's, or derived from the store's prices when none are configured (see bucketSource).",
    ),
  bucketSource: Joi.string()
    .valid('configured', 'derived')
    .description(
      "Price only: configured when the store's filter configuration has at least one price bucket; derived when the buckets come from the prices of the store's published products (about five, rounded bounds, fair shares, none empty).",
    ),
}).label('PublicSearchFacet');

export const PublicSearchResponse = dto(
  'PublicSearchResponse',
  Joi.object({
    items: Joi.array().items(SearchItem).required(),
    page: Joi.number().integer().required(),
    perPage: Joi.number().integer().required(),
    total: Joi.number()
      .integer()
      .required()
      .description('Organic matches (sponsored slots are not counted), including the partial matches filling a short first page.'),
    totalPages: Joi.number().integer().required(),
    sort: Joi.string().required().description('The sort applied (relevance when a price sort was ignored, see ignoredParams).'),
    facets: Joi.array().items(Facet).required().description("The enabled facets of the store's filter configuration, in its order."),
    matching: Joi.object({
      strategy: Joi.string().valid('strict', 'word_forms', 'fewer_words').required(),
      q: Joi.string()
        .allow(null)
        .required()
        .description('The words that produced the results (a looser reading when strategy is not strict).'),
      dropped: Joi.array()
        .items(Joi.string())
        .required()
        .description('Words of the query the results leave out (fewer_words); empty otherwise.'),
      changed: Joi.array()
        .items(Joi.object({ from: Joi.string().required(), to: Joi.string().required() }).label('ChangedWord'))
        .required()
        .description(
          'Words looked for in another form (word_forms: the singular, a number split from its unit, a model code split); empty otherwise.',
        ),
      partialMatches: Joi.number()
        .integer()
        .min(0)
        .required()
        .description(
          'How many products at the end of this first page contain only some of the words (fullMatch false), filling a page that had fewer full matches.',
        ),
    })
      .label('SearchMatching')
      .required(),
    looseMatch: Joi.boolean()
      .required()
      .description('true when no product contains every word and these results come from a looser reading (see matching).'),
    pricesShown: Joi.boolean().required(),
    ignoredParams: Joi.array()
      .items(Joi.string().valid('priceMin', 'priceMax', 'sort'))
      .required()
      .description(
        'Parameters that were sent but not applied: priceMin, priceMax and a price sort (price_asc, price_desc, discount; `sort` then answers relevance) when the store does not show prices to this visitor. Empty otherwise.',
      ),
  }),
);

export const PublicSuggestResponse = dto(
  'PublicSuggestResponse',
  Joi.object({
    q: Joi.string().required(),
    products: Joi.array()
      .items(
        Joi.object({
          id: Joi.string().uuid().required(),
          slug: Joi.string().required(),
          title: Joi.string().required(),
          imageUrl: Joi.string().allow(null).required(),
          brand: Joi.string().allow(null).required(),
          price: Joi.number().description(PRICE_NOTE),
          currency: Joi.string().description(PRICE_NOTE),
        }).label('PublicSuggestProduct'),
      )
      .required(),
    categories: Joi.array()
      .items(
        Joi.object({ id: Joi.string().uuid().required(), name: Joi.string().required(), slug: Joi.string().required() }).label(
          'PublicSuggestCategory',
        ),
      )
      .required(),
    brands: Joi.array()
      .items(
        Joi.object({ id: Joi.string().uuid().required(), name: Joi.string().required(), slug: Joi.string().required() }).label(
          'PublicSuggestBrand',
        ),
      )
      .required(),
  }),
);
