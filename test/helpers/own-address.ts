/**
 * The app on a port chosen first, with PUBLIC_BASE_URL set to that address: for browser tests whose
 * pages link to each other by absolute addresses (the payment simulator's challenge page, the 3-D
 * Secure returns).
 */
import http from 'node:http';
import { createApp } from '../../app/http-app';
import { testRuntime, type TestServer } from './harness';
import { freePort } from './ports';

export async function startOnOwnAddress(): Promise<TestServer> {
  const runtime = await testRuntime();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = { ...runtime.config, publicBaseUrl: baseUrl };
  const app = createApp({ ...runtime, config, services: { ...runtime.services, config } });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return { baseUrl, runtime, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
