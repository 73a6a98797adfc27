/**
 * Local HTTP servers the platform talks to during the suite: the webhook receiver (records every
 * delivery, checks its signature with the shipped verifier, deduplicates by deliveryId as a real
 * receiver must) and an image server for the vision worker. The processes reach them on 127.0.0.1
 * because NODE_ENV=test honours WEBHOOK_ALLOW_ADDRESSES / VISION_FETCH_ALLOW_ADDRESSES.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { verifyWebhookSignature } from '../../api/webhooks/verify';

export interface ReceivedEvent {
  deliveryId: string;
  topic: string;
  productId: string;
  updatedAt: string;
  arrivals: number;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export class WebhookReceiver {
  readonly byDelivery = new Map<string, ReceivedEvent>();
  badSignatures = 0;
  secret = '';
  url = '';
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const verdict = verifyWebhookSignature({
        rawBody: raw,
        header: req.headers['x-service-signature'] as string | undefined,
        secret: this.secret,
      });
      if (!verdict.ok) {
        this.badSignatures += 1;
        res.writeHead(400).end(verdict.reason);
        return;
      }
      const envelope = JSON.parse(raw.toString('utf8')) as { topic: string; deliveryId: string; data: { id: string; updatedAt: string } };
      const known = this.byDelivery.get(envelope.deliveryId);
      if (known) known.arrivals += 1;
      else
        this.byDelivery.set(envelope.deliveryId, {
          deliveryId: envelope.deliveryId,
          topic: envelope.topic,
          productId: envelope.data.id,
          updatedAt: envelope.data.updatedAt,
          arrivals: 1,
        });
      res.writeHead(200).end('ok');
    });
  });

  async start(): Promise<void> {
    this.url = `${await listen(this.server)}/hooks`;
  }

  /** `topic|productId|updatedAt` of every distinct delivery received. */
  keys(): Set<string> {
    return new Set([...this.byDelivery.values()].map((e) => `${e.topic}|${e.productId}|${e.updatedAt}`));
  }

  /** Arrivals beyond the first of a delivery (at-least-once delivery allows them; reported, not failed). */
  repeats(): number {
    return [...this.byDelivery.values()].reduce((sum, e) => sum + e.arrivals - 1, 0);
  }

  close(): Promise<void> {
    return close(this.server);
  }
}

/** A few distinct PNG drawings at /img/<n>.png for product images. */
export class ImageServer {
  base = '';
  private readonly images: Buffer[] = [];
  private readonly server = http.createServer((req, res) => {
    const n = Number(/^\/img\/(\d+)\.png/.exec(req.url ?? '')?.[1] ?? -1);
    const image = this.images[n];
    if (!image) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': image.length }).end(image);
  });

  async start(count = 6): Promise<void> {
    for (let i = 0; i < count; i += 1) {
      const hue = Math.round((360 * i) / count);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128"><rect width="128" height="128" fill="white"/><circle cx="${30 + i * 10}" cy="64" r="${20 + i * 4}" fill="hsl(${hue},80%,50%)"/></svg>`;
      this.images.push(await sharp(Buffer.from(svg)).png().toBuffer());
    }
    this.base = await listen(this.server);
  }

  url(n: number): string {
    return `${this.base}/img/${n % this.images.length}.png`;
  }

  close(): Promise<void> {
    return close(this.server);
  }
}
