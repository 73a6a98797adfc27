/**
 * A one-shot Redis PING over a fresh connection, for readiness checks. bee-queue's client queues
 * commands while Redis is down instead of failing, which is the right thing for jobs but useless for
 * answering "is Redis reachable right now" within a deadline.
 */
import net from 'node:net';
import tls from 'node:tls';

export async function pingRedis(redisUrl: string, timeoutMs: number): Promise<void> {
  const url = new URL(redisUrl);
  const port = Number(url.port || 6379);
  const host = url.hostname || '127.0.0.1';
  const commands: string[] = [];
  const password = url.password ? decodeURIComponent(url.password) : '';
  const username = url.username ? decodeURIComponent(url.username) : '';
  if (password) commands.push(username ? `AUTH ${username} ${password}` : `AUTH ${password}`);
  commands.push('PING');

  await new Promise<void>((resolve, reject) => {
    const socket = url.protocol === 'rediss:' ? tls.connect({ host, port, servername: host }) : net.connect({ host, port });
    let received = '';
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`no answer from Redis within ${timeoutMs} ms`)), timeoutMs);
    socket.once('error', (error) => finish(error));
    socket.once(url.protocol === 'rediss:' ? 'secureConnect' : 'connect', () => socket.write(commands.map((c) => `${c}\r\n`).join('')));
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      if (received.startsWith('-')) finish(new Error(`Redis refused: ${received.split('\r\n')[0]}`));
      else if (received.includes('+PONG')) finish();
    });
  });
}
