/** Every entity, listed explicitly so the data source never depends on file globs (src vs dist). */
import { ApiKey } from './api-key.entity';
import { AuditEntry } from './audit-entry.entity';
import { Brand } from './brand.entity';
import { Bundle, BundleItem } from './bundle.entity';
import { Category } from './category.entity';
import { Collection, CollectionItem } from './collection.entity';
import { CategoryAttribute } from './category-attribute.entity';
import { FilterConfig } from './filter-config.entity';
import { Product, ProductCategory, ProductImage, ProductRelation, ProductTag, ProductTagAssignment, ProductVariant } from './product.entity';
import { DeviceCode } from './device-code.entity';
import { OneTimeToken } from './one-time-token.entity';
import { OutboundMessage } from './outbound-message.entity';
import { OutboxMessage } from './outbox-message.entity';
import { PhoneOtp } from './phone-otp.entity';
import { RefreshToken } from './refresh-token.entity';
import { Session } from './session.entity';
import { Store } from './store.entity';
import { Tenant } from './tenant.entity';
import { User } from './user.entity';
import { SearchSynonym } from './search-synonym.entity';

export const entities = [OutboxMessage, Tenant, User, Session, RefreshToken, OneTimeToken, PhoneOtp, DeviceCode, Store, ApiKey, AuditEntry, OutboundMessage, Category, CategoryAttribute, Brand, FilterConfig, Product, ProductVariant, ProductImage, ProductCategory, ProductTag, ProductTagAssignment, ProductRelation, Collection, CollectionItem, Bundle, BundleItem, SearchSynonym];
export { ApiKey, AuditEntry, Brand, Category, CategoryAttribute, Collection, CollectionItem, FilterConfig, Product, ProductCategory, ProductImage, ProductRelation, ProductTag, ProductTagAssignment, ProductVariant, DeviceCode, OneTimeToken, OutboundMessage, OutboxMessage, PhoneOtp, RefreshToken, Session, Store, Tenant, User, Bundle, BundleItem, SearchSynonym };
