/**
 * multipart/form-data bodies for operations that take a file upload (route row `upload`): one file
 * part (the row's field) read into memory with a size limit enforced while streaming (413 at the
 * limit, the rest of the upload is not buffered), plus short text fields. Nothing is written to disk.
 */
import type Koa from 'koa';
import busboy from 'busboy';
import { PayloadTooLargeError } from '../../lib/errors';
import { httpError } from './http.errors';

export interface MultipartLimits {
  fileField: string;
  maxFileBytes: number;
  /** Per text field. */
  maxFieldBytes?: number;
  maxFields?: number;
}

export interface MultipartBody {
  fields: Record<string, string>;
  file?: { buffer: Buffer; filename?: string; mimeType?: string };
}

export function isMultipart(ctx: Koa.Context): boolean {
  return (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase() === 'multipart/form-data';
}

export function readMultipart(ctx: Koa.Context, limits: MultipartLimits): Promise<MultipartBody> {
  const declared = Number(ctx.get('Content-Length') || '0');
  // The file plus generous room for the other parts and boundaries.
  if (declared > limits.maxFileBytes + 64 * 1024)
    return Promise.reject(new PayloadTooLargeError(limits.maxFileBytes, `The upload exceeds the limit of ${limits.maxFileBytes} bytes.`));
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        limits: {
          files: 1,
          fileSize: limits.maxFileBytes,
          fields: limits.maxFields ?? 20,
          fieldSize: limits.maxFieldBytes ?? 16 * 1024,
          parts: (limits.maxFields ?? 20) + 1,
        },
      });
    } catch {
      reject(httpError('invalid_multipart', 'The multipart body has no boundary.'));
      return;
    }
    const fields: Record<string, string> = {};
    let file: MultipartBody['file'];
    let failed: Error | undefined;
    const fail = (error: Error): void => {
      if (failed) return;
      failed = error;
      ctx.req.unpipe(parser);
      ctx.req.resume();
      reject(error);
    };
    parser.on('file', (name, stream, info) => {
      if (name !== limits.fileField) {
        stream.resume();
        fail(httpError('invalid_multipart', `Unexpected file part "${name}"; send the file as "${limits.fileField}".`));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        fail(new PayloadTooLargeError(limits.maxFileBytes, `The uploaded file exceeds the limit of ${limits.maxFileBytes} bytes.`)),
      );
      stream.on('end', () => {
        if (!failed) file = { buffer: Buffer.concat(chunks), filename: info.filename, mimeType: info.mimeType };
      });
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(httpError('invalid_multipart', `The field "${name}" is too long.`));
      else if (name === limits.fileField) fail(httpError('invalid_multipart', `"${name}" must be sent as a file part.`));
      else fields[name] = value;
    });
    parser.on('filesLimit', () => fail(httpError('invalid_multipart', 'Only one file may be uploaded.')));
    parser.on('fieldsLimit', () => fail(httpError('invalid_multipart', 'Too many fields.')));
    parser.on('partsLimit', () => fail(httpError('invalid_multipart', 'Too many parts.')));
    parser.on('error', (error: Error) => fail(httpError('invalid_multipart', `The multipart body could not be read (${error.message}).`)));
    parser.on('close', () => {
      if (!failed) resolve({ fields, file });
    });
    ctx.req.on('aborted', () => fail(httpError('body_incomplete', 'The request body was not received completely.')));
    ctx.req.pipe(parser);
  });
}
