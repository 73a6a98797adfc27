/**
 * The PDF of a subscription invoice (docs/billing.md, "Invoice PDF"), drawn with pdf-lib and its
 * built-in Helvetica: the number, dates, the tenant, each line, subtotal, VAT and total as exact
 * decimals with 2 places. Characters the built-in font cannot write (outside Latin-1) are written
 * without their accents, or as "?".
 */
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { twoDecimals } from './invoice-math';
import type { InvoiceRow } from './billing.views';

/** Text the standard fonts can encode (WinAnsi): accents dropped where that helps, anything else "?". */
export function pdfSafe(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ı/g, 'i')
    .replace(/[^\x20-\x7e\xa0-\xff]/g, '?');
}

const day = (value: Date | null): string => (value ? new Date(value).toISOString().slice(0, 10) : '-');

export async function renderInvoicePdf(invoice: InvoiceRow, tenantName: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Invoice ${invoice.number ?? invoice.id}`);
  doc.setProducer('commerce platform billing');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([595.28, 841.89]); // A4
  let y = 790;
  const write = (text: string, x: number, size = 10, f = font): void => {
    page.drawText(pdfSafe(text), { x, y, size, font: f, color: rgb(0, 0, 0) });
  };
  write('INVOICE', 50, 20, bold);
  y -= 30;
  write(`Invoice number: ${invoice.number ?? '-'}`, 50, 11, bold);
  y -= 16;
  write(`Status: ${invoice.status}`, 50);
  y -= 14;
  write(`Issued: ${day(invoice.issued_at)}   Due: ${day(invoice.due_at)}   Paid: ${day(invoice.paid_at)}`, 50);
  y -= 14;
  write(`Period: ${day(invoice.period_start)} to ${day(invoice.period_end)}`, 50);
  y -= 14;
  write(`Billed to: ${tenantName} (${invoice.tenant_id})`, 50);
  y -= 30;
  write('Description', 50, 10, bold);
  write('Qty', 330, 10, bold);
  write('Unit price', 380, 10, bold);
  write('Amount', 480, 10, bold);
  y -= 16;
  for (const line of invoice.lines) {
    write(line.description.slice(0, 55), 50);
    write(String(line.quantity), 330);
    write(twoDecimals(line.unitPrice), 380);
    write(twoDecimals(line.amount), 480);
    y -= 14;
  }
  y -= 16;
  const money = (label: string, value: string, f = font): void => {
    write(label, 330, 10, f);
    write(`${twoDecimals(value)} ${invoice.currency}`, 480, 10, f);
    y -= 14;
  };
  money('Subtotal', invoice.subtotal);
  money(`VAT ${Number(invoice.vat_rate)}%`, invoice.vat_amount);
  money('Total', invoice.total, bold);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
