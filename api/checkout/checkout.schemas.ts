/** DTOs of the checkout area: merchant checkout settings and the storefront wallet checkout. */
import { pendingDto } from '../http/route';

export const UpsertMerchantCheckoutSettingsDto = pendingDto('UpsertMerchantCheckoutSettingsDto');
export const WalletChargeDto = pendingDto('WalletChargeDto');
