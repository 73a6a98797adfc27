/**
 * A local SMTP server that accepts every message and keeps it (docs/messaging.md, "The local SMTP
 * sink"): for development (`npm run smtp-sink`, then SMTP_URL=smtp://127.0.0.1:2525) and for tests
 * that send real e-mail. Messages are kept in memory and, with a folder, written there as .eml files.
 * A message whose Message-ID was already received is counted as a duplicate and not kept again, the
 * way a receiver that deduplicates by Message-ID behaves.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  messageId: string | null;
  from: string | null;
  to: string[];
  subject: string | null;
  /** The message as received (headers and body). */
  raw: string;
  /** The body after the headers. */
  text: string;
  receivedAt: Date;
}

export interface SmtpSink {
  port: number;
  /** Kept messages, in arrival order (one per Message-ID). */
  messages: ReceivedMail[];
  /** Messages received again under a Message-ID already kept. */
  duplicates: number;
  close(): Promise<void>;
}

/** The unfolded value of the first header `name`, or null. */
function header(head: string, name: string): string | null {
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const match = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(unfolded);
  return match ? match[1]!.trim() : null;
}

/** Starts the sink on 127.0.0.1 (`port` 0: any free port). */
export async function startSmtpSink(options: { port?: number; folder?: string } = {}): Promise<SmtpSink> {
  const seen = new Set<string>();
  const sink: SmtpSink = { port: 0, messages: [], duplicates: 0, close: async () => undefined };
  if (options.folder) mkdirSync(options.folder, { recursive: true });
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const split = raw.search(/\r?\n\r?\n/);
        const head = split < 0 ? raw : raw.slice(0, split);
        const text = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
        const messageId = header(head, 'Message-ID');
        if (messageId && seen.has(messageId)) {
          sink.duplicates += 1;
          callback();
          return;
        }
        if (messageId) seen.add(messageId);
        const mail: ReceivedMail = {
          messageId,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: header(head, 'Subject'),
          raw,
          text,
          receivedAt: new Date(),
        };
        sink.messages.push(mail);
        if (options.folder)
          writeFileSync(path.join(options.folder, `${mail.receivedAt.getTime()}-${sink.messages.length}.eml`), raw, { mode: 0o600 });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  sink.port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}
