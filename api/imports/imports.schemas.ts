/** Bodies of the import operations: CSV documents with a header row. */
import { pendingDto } from '../http/route';

export const ProductImportCsv = pendingDto('ProductImportCsv', 'text/csv');
export const CustomerImportCsv = pendingDto('CustomerImportCsv', 'text/csv');
