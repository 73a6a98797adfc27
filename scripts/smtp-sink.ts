/**
 * `npm run smtp-sink`: the local SMTP sink for development (lib/smtp-sink.ts). Listens on
 * 127.0.0.1:SMTP_SINK_PORT (default 2525) and writes every message to .data/smtp-sink/ as an .eml
 * file. Start the platform with SMTP_URL=smtp://127.0.0.1:2525 to send its e-mail there.
 */
import path from 'node:path';
import { startSmtpSink } from '../lib/smtp-sink';

async function main(): Promise<void> {
  const port = Number(process.env.SMTP_SINK_PORT ?? 2525);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error('SMTP_SINK_PORT must be a port number (1 to 65535)');
  const folder = path.resolve(__dirname, '..', '..', '.data', 'smtp-sink');
  const sink = await startSmtpSink({ port, folder });
  process.stdout.write(`SMTP sink listening on 127.0.0.1:${sink.port}; messages are written to ${folder}\n`);
  const stop = () => void sink.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`smtp-sink failed: ${(error as Error).message}\n`);
  process.exit(1);
});
