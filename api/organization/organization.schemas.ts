/** DTOs of the organization area (tenant and stores). */
import Joi from 'joi';
import { dto } from '../http/route';
import { t, typedDto } from '../http/typed-schema';
import { dateTime, int, languageTag, oneOf, uuid } from '../http/schema-types';
import { SLUG_MAX, SLUG_MIN, SLUG_PATTERN } from './organization.slugs';

// Value types ---------------------------------------------------------------------------------

/** The ISO 3166-1 alpha-2 country codes (officially assigned; no reserved or user-assigned codes). */
const COUNTRY_CODES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** Currencies the runtime knows (ISO 4217, current). */
const CURRENCY_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** IANA time zones the runtime lists, plus UTC (which the list leaves out). */
const TIME_ZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

/**
 * A listed zone, or another IANA name the runtime knows. ICU lists canonical zones only, some under
 * older names (America/Buenos_Aires, Asia/Calcutta, Europe/Kiev), while clients send the IANA
 * database's current names (America/Argentina/Buenos_Aires, Asia/Kolkata, Europe/Kyiv) and the Etc/
 * zones; those are accepted when the runtime resolves them. Names must be spelled in their IANA case
 * (europe/berlin is refused).
 */
export function isTimeZone(name: string): boolean {
  if (TIME_ZONES.has(name)) return true;
  if (!/^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Membership of `set`, checked once the value has the code's shape (the pattern reports the rest, once). */
function member(set: ReadonlySet<string>, shape: RegExp, code: string): Joi.CustomValidator<string> {
  return (value, helpers) => (set.has(value) || !shape.test(value) ? value : helpers.error(code));
}

export const countryCode = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Z]{2}$/, 'country')
    .custom(member(COUNTRY_CODES, /^[A-Z]{2}$/, 'country.unknown'))
    .messages({
      'string.pattern.name': '{{#label}} must be an ISO 3166-1 alpha-2 country code such as DE',
      'country.unknown': '{{#label}} must be an ISO 3166-1 alpha-2 country code such as DE',
    })
    .description('ISO 3166-1 alpha-2 country code, upper case (DE, TR, US).');

export const currencyCode = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Z]{3}$/, 'currency')
    .custom(member(CURRENCY_CODES, /^[A-Z]{3}$/, 'currency.unknown'))
    .messages({
      'string.pattern.name': '{{#label}} must be an ISO 4217 currency code such as EUR',
      'currency.unknown': '{{#label}} must be an ISO 4217 currency code such as EUR',
    })
    .description('ISO 4217 currency code, upper case (EUR, USD, TRY).');

export const timeZone = (): Joi.StringSchema =>
  Joi.string()
    .max(64)
    .custom((value: string, helpers) => (isTimeZone(value) ? value : helpers.error('timezone.unknown')))
    .messages({ 'timezone.unknown': '{{#label}} must be an IANA time zone such as Europe/Berlin or UTC' })
    .description('IANA time zone name (Europe/Berlin, America/New_York, UTC).');

export const storeSlug = (): Joi.StringSchema =>
  Joi.string()
    .min(SLUG_MIN)
    .max(SLUG_MAX)
    .pattern(SLUG_PATTERN, 'slug')
    .messages({
      'string.pattern.name':
        '{{#label}} may hold lowercase letters, digits and single hyphens, and must start and end with a letter or digit',
    })
    .description(
      `Unique platform-wide; ${SLUG_MIN} to ${SLUG_MAX} lowercase letters, digits and single hyphens, starting and ending with a letter or digit; not a reserved word (see GET /organization/public/check-slug).`,
    );

const contactEmail = (): Joi.StringSchema =>
  Joi.string()
    .trim()
    .lowercase()
    .max(254)
    .email({ tlds: { allow: false } });
const displayName = (): Joi.StringSchema => Joi.string().trim().min(1).max(200);

export const PRICE_VISIBILITIES = ['EVERYONE', 'SIGNED_IN', 'HIDDEN'] as const;
const priceVisibility = () =>
  t.oneOf(PRICE_VISIBILITIES, (s) =>
    s.description(
      'Who sees prices on the public storefront reads (search, suggest, product, related products, bundles, collections): EVERYONE, SIGNED_IN (only requests carrying a valid access token of a signed-in user) or HIDDEN (nobody). Where prices are not shown they are left out of the answers.',
    ),
  );

// Requests ------------------------------------------------------------------------------------

export const UpdateTenantDto = typedDto(
  'UpdateTenantDto',
  t
    .object({
      name: t.string(displayName()),
      legalName: t.string(displayName().description('Registered company name; null clears it.')).nullable(),
      country: t.string(countryCode().description('Country of the company, ISO 3166-1 alpha-2 (DE, TR, US); null clears it.')).nullable(),
      defaultCurrency: t.string(currencyCode().description('ISO 4217 currency code (EUR, USD, TRY) of new stores unless they name one.')),
      timezone: t.string(timeZone().description('IANA time zone (Europe/Berlin, UTC) of new stores unless they name one.')),
      website: t
        .string(
          Joi.string()
            .uri({ scheme: ['http', 'https'] })
            .max(2048)
            .description('null clears it.'),
        )
        .nullable(),
    })
    .rules((o) => o.min(1).messages({ 'object.min': 'Give at least one field to change.' })),
);

export const CreateStoreDto = typedDto(
  'CreateStoreDto',
  t.object({
    name: t.string(displayName()).required(),
    slug: t.string(
      storeSlug().description(
        'Derived from the name (and made unique) when left out. Unique platform-wide, lowercase letters, digits and hyphens, 3 to 60 characters.',
      ),
    ),
    currency: t.string(currencyCode().description("ISO 4217 currency code; defaults to the tenant's defaultCurrency.")),
    defaultLocale: t.string(languageTag().description('Defaults to en.')),
    timezone: t.string(timeZone().description("IANA time zone; defaults to the tenant's timezone.")),
    contactEmail: t.string(contactEmail().description('Where shoppers and the platform reach the store; needed before it can go live.')),
    priceVisibility: priceVisibility().rules((s) => s.description('Defaults to EVERYONE. See UpdateStoreDto.priceVisibility.')),
  }),
);

export const UpdateStoreDto = typedDto(
  'UpdateStoreDto',
  t
    .object({
      name: t.string(displayName()),
      slug: t.string(storeSlug()),
      currency: t.string(currencyCode()),
      defaultLocale: t.string(languageTag()),
      timezone: t.string(timeZone()),
      contactEmail: t.string(contactEmail().description('null clears it.')).nullable(),
      priceVisibility: priceVisibility(),
      // Only true is valid: a store stops being the default when another one becomes it.
      isDefault: t.custom<true>(
        Joi.boolean()
          .valid(true)
          .description(
            'true makes this store the default of the tenant (the previous default stops being it). To change the default, set it on the new one.',
          ),
      ),
    })
    .rules((o) => o.min(1).messages({ 'object.min': 'Give at least one field to change.' })),
);

// Responses -----------------------------------------------------------------------------------

export const TenantDetails = Joi.object({
  id: uuid().required(),
  name: Joi.string().required(),
  kind: oneOf(['merchant', 'partner', 'sandbox']).required(),
  legalName: Joi.string().allow(null).required(),
  country: Joi.string().allow(null).required(),
  defaultCurrency: Joi.string().required(),
  timezone: Joi.string().required(),
  website: Joi.string().allow(null).required(),
  createdAt: dateTime().required(),
  updatedAt: dateTime().required(),
}).label('TenantDetails');

export const StoreSummary = Joi.object({
  id: uuid().required(),
  name: Joi.string().required(),
  slug: Joi.string().required(),
  status: oneOf(['active', 'archived']).required(),
  isDefault: Joi.boolean().required(),
}).label('StoreSummary');

export const StoreResponse = dto(
  'StoreResponse',
  Joi.object({
    id: uuid().required(),
    name: Joi.string().required(),
    slug: Joi.string().required(),
    status: oneOf(['active', 'archived']).required(),
    isDefault: Joi.boolean().required(),
    currency: Joi.string().required(),
    defaultLocale: Joi.string().required(),
    timezone: Joi.string().required(),
    contactEmail: Joi.string().allow(null).required(),
    priceVisibility: oneOf(PRICE_VISIBILITIES)
      .required()
      .description('EVERYONE, SIGNED_IN or HIDDEN: who sees prices on the public storefront reads.'),
    createdAt: dateTime().required(),
    updatedAt: dateTime().required(),
    archivedAt: dateTime().allow(null).required(),
  }),
);

export const TenantResponse = dto('TenantResponse', TenantDetails);

export const OrganizationSummaryResponse = dto(
  'OrganizationSummaryResponse',
  Joi.object({
    tenant: TenantDetails.required(),
    stores: Joi.array().items(StoreSummary).required().description('Every store of the tenant, archived ones included, oldest first.'),
    counts: Joi.object({
      stores: int(0).required().description('Active (not archived) stores.'),
      users: int(0).required().description('Members of the tenant.'),
      apiKeys: int(0).required().description('API keys that are neither revoked nor expired.'),
    }).required(),
  }),
);

const Step = Joi.object({
  key: oneOf(['account_verified', 'store_created', 'product_published', 'checkout_configured', 'api_key_created']).required(),
  title: Joi.string().required(),
  done: Joi.boolean().required(),
  available: Joi.boolean()
    .required()
    .description('false while the platform area the step needs is not built yet; such a step is reported as not done.'),
  reason: Joi.string().description('Why a step is not available.'),
}).label('OnboardingStep');

export const OnboardingStatusResponse = dto(
  'OnboardingStatusResponse',
  Joi.object({
    steps: Joi.array().items(Step).required(),
    completed: int(0).required(),
    total: int(0).required(),
    complete: Joi.boolean().required(),
    nextStep: Joi.string()
      .allow(null)
      .required()
      .description('The first step not done that can be done now; else the first step not done; null when complete.'),
  }),
);

export const StoreReadinessResponse = dto(
  'StoreReadinessResponse',
  Joi.object({
    storeId: uuid().required(),
    ready: Joi.boolean().required(),
    missing: Joi.array()
      .items(
        Joi.object({
          key: Joi.string().required(),
          message: Joi.string().required(),
          available: Joi.boolean()
            .required()
            .description('false when what is missing cannot be provided yet (the platform area is not built).'),
        }).label('ReadinessGap'),
      )
      .required(),
  }),
);

export const CheckSlugResponse = dto(
  'CheckSlugResponse',
  Joi.object({
    slug: Joi.string().required().description('The slug as checked.'),
    available: Joi.boolean().required(),
    reason: oneOf(['taken', 'invalid', 'reserved']).description('Why it is not available.'),
    suggestion: Joi.string().description('A well-formed, free slug close to the one asked for (when it is not available).'),
  }),
);
