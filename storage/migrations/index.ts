/** Every migration in order. Add new ones at the end (file name: <unix-ms>-<what>.ts). */
import { Outbox1795000000000 } from './1795000000000-outbox';
import { Accounts1795000000001 } from './1795000000001-accounts';
import { TotpLastStep1795000000020 } from './1795000000020-totp-last-step';
import { CatalogTaxonomy1795000000100 } from './1795000000100-catalog-taxonomy';
import { Products1795000000200 } from './1795000000200-products';
import { Collections1795000000300 } from './1795000000300-collections';
import { Bundles1795000000400 } from './1795000000400-bundles';
import { SearchSynonyms1795000000500 } from './1795000000500-search-synonyms';

export const migrations = [Outbox1795000000000, Accounts1795000000001, TotpLastStep1795000000020, CatalogTaxonomy1795000000100, Products1795000000200, Collections1795000000300, Bundles1795000000400, SearchSynonyms1795000000500];
