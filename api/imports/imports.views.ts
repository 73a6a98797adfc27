/** What the asynchronous import and export operations answer (imports.schemas.ts TransferJobProgress). */
import type { TransferJobKind, TransferJobState } from '../../storage/entities/transfer-job.entity';
import type { RowError } from './csv-stream';

/** The progress of an import or export job. */
export interface TransferJobView {
  id: string;
  storeId: string;
  kind: TransferJobKind;
  state: TransferJobState;
  fileBytes: number;
  rows: { read: number; failed: number };
  products: { created: number; updated: number; unchanged: number; failed: number; exported: number };
  errors: RowError[];
  errorsTotal: number;
  failure: string | null;
  /** A completed export's signed link and when it stops working; null otherwise. */
  download: { url: string; expiresAt: string } | null;
  downloadExpired: boolean;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}
