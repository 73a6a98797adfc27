/** The long descriptions of the sandbox route table (sandbox.routes.ts), kept out of its rows. */

export const withToken =
  'Needs the sandbox token (or a simulated token with the sandbox scope: sandbox:read for GET, sandbox:write otherwise); a token of a tenant that is not a sandbox answers 404 sandbox_not_found.';

export const CREATE_DESCRIPTION =
  "Extension: a sandbox is created with an e-mail address alone, with no account and no payment card. Creates a tenant of its own (kind sandbox) with one store (currency TRY) seeded with the factory data: 100 published products (titles, descriptions, 14 categories, 10 brands, variants, prices, stock, tags, generated images), 50 customers, 200 orders (their quantities are the products' sales counts) and 3 vendors; the products are in the search index, with image vectors, when it answers. Answers 201 with the sandbox token, shown once: send it as Authorization: Bearer <SANDBOX_TOKEN> to any store operation of this API (same schema, validation and answers as production; no money moves). Rate-limited per client address (10 an hour) and per e-mail address (3 an hour): 429 with Retry-After.";

export const GET_DESCRIPTION = `Extension. ${withToken}`;

export const RESET_DESCRIPTION = `Extension: rolls the sandbox back to its factory defaults, at any time; it is re-seeded in seconds. ${withToken} Everything of the sandbox is removed (products, customers, orders, categories, brands, tags, collections, API keys and simulated tokens, webhook endpoints and deliveries, settings) and the factory data is written again with new ids; the sandbox token, tenant and store ids stay. The audit log keeps its entries. Answers when the seed is committed and searchable, with durationMs. 30 resets an hour per sandbox (429).`;

export const ISSUE_TOKEN_DESCRIPTION = `Extension: a token simulator, to rehearse the OAuth flow, scope checks, expired tokens and refresh. ${withToken} The token is a store API key of the sandbox with the given scopes and lifetime (0 or less: already expired; at most 30 days). A token mints only within its own rights: scopes it holds itself (a * token, such as the sandbox token, any scope; otherwise 403 scope_not_held, so a sandbox:write token cannot mint *) and a lifetime that ends no later than its own (403 token_lifetime_exceeded); a signed-in member needs the owner or admin role and is bounded by the end of the session. With it, an operation outside its scopes answers 403 insufficient_scope and an expired token 401 invalid_api_key, exactly as production answers. refresh: true adds a refresh credential to rehearse POST /sandbox/tokens/refresh. A reset removes every simulated token.`;

export const REFRESH_TOKEN_DESCRIPTION =
  'Extension: the refresh rehearsal of the token simulator; no Authorization header (the token being refreshed may have expired). The refresh credential works once: the old token is revoked and a new token (same scopes; the same lifetime, at least one hour, but never past the expiry of the credential that minted the first token) comes with a new refresh credential of the same chain (refresh family). An unknown, expired or revoked credential answers 401 invalid_refresh_token; a credential used a second time 401 refresh_token_reused, and the whole family is revoked: the token issued from it, every later token and refresh credential of the chain (audited as sandbox.refresh_reused). 60 a minute per client address (429).';

export const TEST_CARDS_DESCRIPTION =
  'Extension: test cards of three payment providers, preloaded for success, 3DS challenge, fraud and refund flows. Static fixtures, the same for every sandbox; no money moves. Any member or API key of a tenant may read them (scope sandbox:read).';
