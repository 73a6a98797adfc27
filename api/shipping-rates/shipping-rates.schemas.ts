/** DTOs of the shipping rates area. */
import { csvDocument, pendingDto } from '../http/route';

export const CreateShippingRateDto = pendingDto('CreateShippingRateDto');
export const UpdateShippingRateDto = pendingDto('UpdateShippingRateDto');
export const QuoteShippingDto = pendingDto('QuoteShippingDto');

export const ShippingRatesCsv = csvDocument('ShippingRatesCsv', 'The shipping rates of a store, one row per rate.');
