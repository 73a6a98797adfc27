/** DTOs of the merchant wallets area (wallet payment methods of a store). */
import { pendingDto } from '../http/route';

export const WalletConfigUpsertDto = pendingDto('WalletConfigUpsertDto');
