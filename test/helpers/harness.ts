/**
 * Test harness: the real app against the real services (started by scripts/test), on the test
 * database and a queue prefix of its own, served on an ephemeral port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../app/http-app';
import { loadConfig, type Config } from '../../lib/config';
import type { RouteDef } from '../../api/http/route';
import { createMonitor, createRuntime, type Runtime } from '../../app/runtime';

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    ...overrides,
  });
}

let shared: Promise<Runtime> | undefined;

/** One runtime (data source, migrations applied) shared by the test files of a run. */
export function testRuntime(): Promise<Runtime> {
  shared ??= createRuntime(testConfig(), 'commerce-test');
  return shared;
}

export async function closeTestRuntime(): Promise<void> {
  if (!shared) return;
  const runtime = await shared;
  shared = undefined;
  await runtime.close();
}

export interface TestServer {
  baseUrl: string;
  runtime: Runtime;
  close(): Promise<void>;
}

export async function startTestServer(options: { routes?: RouteDef[]; config?: Partial<Config> } = {}): Promise<TestServer> {
  const runtime = await testRuntime();
  const config = { ...runtime.config, ...options.config };
  // A server pointed at other services (e.g. an unreachable Redis) probes those for its readiness.
  const overridesServices = ['databaseUrl', 'redisUrl', 'meiliUrl'].some((key) => options.config && key in options.config);
  const monitor = overridesServices ? createMonitor(config, runtime.logger) : runtime.monitor;
  const app = createApp({ ...runtime, config, monitor, routes: options.routes });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    runtime,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (monitor !== runtime.monitor) await monitor.stop();
    },
  };
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function call(
  server: TestServer,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string | Buffer; contentType?: string; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    if (options.contentType) headers['Content-Type'] = options.contentType;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
