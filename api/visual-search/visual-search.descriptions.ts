/** The long descriptions of the visual search route table (visual-search.routes.ts), kept out of its rows. */

export const readers = "Any member of the tenant, or an API key of the store. Another tenant's store answers 404.";

export const writers = `${readers} An archived store answers 409 store_archived. Each change records one audit entry.`;

export const disabledNote =
  'A store with visual search disabled (the default until its settings enable it) answers 409 visual_search_disabled.';

export const scoreNote =
  "Results are ordered by similarity, most similar first; score is (1 + cosine) / 2 of the two image vectors (1: the same image), and results below the store's minSimilarity are left out. While the store's index is being rebuilt after a model change the search may answer 409 visual_index_not_ready.";

export const queryNote = `The image comes as a multipart/form-data upload (file part \`image\`, other fields as form fields), as base64 in a JSON body (\`image\`), or as \`imageUrl\` fetched by the server (http or https, public addresses only — loopback, private, link-local, CGNAT, multicast and cloud metadata addresses are refused, also after redirects — with a timeout and a size limit). \`text\` matches words against product photos when the store uses the clip model. The content is sniffed: anything but a JPEG, PNG, GIF, WebP, AVIF or TIFF image answers 415 not_an_image (400 for a URL), an upload over the size limit 413, an image over the pixel limit 413 image_too_many_pixels (400 for a URL), a refused URL 400 image_url_not_allowed, an unreachable one 400 image_fetch_failed. Filters (categoryId with its subcategories, brandId, minPrice, maxPrice, inStock) apply inside the same search. limit defaults to the store's maxResults and never exceeds it. The image is used for this query only and is never stored. ${disabledNote} ${scoreNote}`;

export const UPDATE_SETTINGS_DESCRIPTION = `${writers} Fields left out keep their value; a store without settings starts from enabled false, model mobilenet-v2, minSimilarity 0, maxResults 20. Turning visual search on, or changing the model while it is on, queues every product image of the store for embedding (see GET …/index for progress). model clip answers 400 model_unavailable unless the server has a CLIP model installed. A PATCH that changes nothing records nothing.`;

export const INDEX_PRODUCTS_DESCRIPTION = `${writers} Queues the given products (or all of them) for the vision worker, which fetches each product's main image, embeds it and stores the vector; a vector already stored for the same image and model is reused unless force is true. Products without an image are skipped. Unknown product ids answer 404 product_not_found. ${disabledNote}`;

export const INDEX_STATUS_DESCRIPTION = `${readers} Counts of indexed, pending and failed images (with the reasons of the latest failures), the model and its dimensions, and when indexing was last requested and last done.`;

export const CLEAR_INDEX_DESCRIPTION = `${writers} Removes every stored vector of the store (from PostgreSQL, and from the search index through the indexer); the settings stay. POST …/index embeds them again.`;

export const SIMILAR_PRODUCTS_DESCRIPTION = `${readers} Published products of the same store whose main image looks like this product's, never the product itself. limit is not typed by the specification; 1 to 100, default 50. A product of another store answers 404 product_not_found; one whose image is not indexed yet 409 product_image_not_indexed. ${disabledNote} ${scoreNote}`;

export const QUERY_DESCRIPTION = `${readers} Searches every product of the store whatever its status (drafts and archived included). ${queryNote}`;

export const PUBLIC_QUERY_DESCRIPTION = `No token. Searches the published products of an active store (an unknown or archived store answers 404). Rate limited per client address (VISION_PUBLIC_QUERIES_PER_MINUTE, 30 by default; 429 with Retry-After). When the store does not show prices to this visitor (price visibility HIDDEN, or SIGNED_IN without a valid access token), price and currency are left out of every item and minPrice and maxPrice are ignored (not refused, so a storefront sending them keeps working; ignoredParams names them), so nothing in the answer depends on a price; pricesShown says which applied. ${queryNote}`;
