/**
 * Which database failures are a lost connection (503 with Retry-After, worth a retry) and which are
 * not, over the error shapes node-postgres, pg-pool and TypeORM really produce: the lost-connection
 * ones come from real clients against servers that refuse, hang up or never answer; the rest are
 * built the way the driver builds them.
 */
import net from 'node:net';
import { expect } from 'chai';
import { Client, DatabaseError, Pool } from 'pg';
import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isConnectionLoss, translateDatabaseError } from '../../api/http/db-errors';
import { InternalError, ServiceUnavailableError } from '../../lib/errors';
import { toAppError } from '../../api/http/middleware';

/** A TCP server that does `onConnection` with each client socket, on an ephemeral port. */
async function fakeServer(onConnection: (socket: net.Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** A DatabaseError as pg-protocol's parser builds it from an ErrorResponse. */
function databaseError(message: string, code: string, severity = 'ERROR'): DatabaseError {
  const error = new DatabaseError(message, message.length, 'error');
  Object.assign(error, { severity, code });
  return error;
}

/** A failed statement as TypeORM's PostgresQueryRunner reports it. */
const queryFailed = (driverError: Error) => new QueryFailedError('INSERT INTO products (id) VALUES ($1)', ['secret'], driverError);

function expect503(error: unknown, label: string): void {
  expect(isConnectionLoss(error), label).to.equal(true);
  const translated = translateDatabaseError(error);
  expect(translated, label).to.be.instanceOf(ServiceUnavailableError);
  expect(translated!.status).to.equal(503);
  expect(translated!.headers['Retry-After']).to.equal('1');
  expect(toAppError(error).status, label).to.equal(503);
}

describe('database connection loss (isConnectionLoss, translateDatabaseError)', () => {
  it('recognises a refused connection (errno code), alone and wrapped by TypeORM', async () => {
    const closed = await fakeServer(() => undefined);
    const { port } = closed;
    await closed.close();
    const refused = await rejection(new Client({ host: '127.0.0.1', port, user: 'x', database: 'x' }).connect());
    expect((refused as NodeJS.ErrnoException).code).to.equal('ECONNREFUSED');
    expect503(refused, 'ECONNREFUSED');
    expect503(queryFailed(refused), 'ECONNREFUSED in QueryFailedError');
    // A connect that tried several addresses (localhost → ::1 and 127.0.0.1).
    expect503(new AggregateError([refused, refused], 'connect failed'), 'AggregateError');
  });

  it('recognises a server that hangs up: "Connection terminated unexpectedly"', async () => {
    const hangUp = await fakeServer((socket) => socket.end());
    try {
      const error = await rejection(new Client({ host: '127.0.0.1', port: hangUp.port, user: 'x', database: 'x' }).connect());
      expect(error.message).to.equal('Connection terminated unexpectedly');
      expect((error as NodeJS.ErrnoException).code).to.equal(undefined);
      expect503(error, 'terminated unexpectedly');
      expect503(queryFailed(error), 'terminated unexpectedly in QueryFailedError');
    } finally {
      await hangUp.close();
    }
  });

  it('recognises connect timeouts of the pool: a new connection, and waiting for a free one', async () => {
    const silent = await fakeServer(() => undefined);
    const pool = new Pool({ host: '127.0.0.1', port: silent.port, user: 'x', database: 'x', max: 1, connectionTimeoutMillis: 150 });
    try {
      const [connecting, waiting] = await Promise.all([rejection(pool.connect()), rejection(pool.connect())]);
      expect(connecting.message).to.equal('Connection terminated due to connection timeout');
      expect(connecting.cause).to.be.instanceOf(Error);
      expect(waiting.message).to.equal('timeout exceeded when trying to connect');
      expect503(connecting, 'connection timeout');
      expect503(waiting, 'pool wait timeout');
    } finally {
      await pool.end().catch(() => undefined);
      await silent.close();
    }
  });

  it('recognises the driver messages without a code and the SQLSTATEs that end a session', () => {
    for (const message of [
      'Connection terminated',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
    ]) {
      expect503(new Error(message), message);
      expect503(queryFailed(new Error(message)), `${message} in QueryFailedError`);
    }
    for (const [message, code] of [
      ['terminating connection due to administrator command', '57P01'],
      ['terminating connection because of crash of another server process', '57P02'],
      ['the database system is starting up', '57P03'],
      ['terminating connection due to idle-in-transaction timeout', '25P03'],
      ['sorry, too many clients already', '53300'],
      ['connection failure', '08006'],
    ] as const) {
      const error = databaseError(message, code, 'FATAL');
      expect503(error, code);
      expect503(queryFailed(error), `${code} in QueryFailedError`);
    }
    for (const code of ['EPIPE', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH']) {
      const error = Object.assign(new Error(`write ${code}`), { errno: -32, code, syscall: 'write' });
      expect503(error, code);
      expect503(queryFailed(error), `${code} in QueryFailedError`);
      expect503(new Error('wrapped', { cause: error }), `${code} as a cause`);
    }
  });

  it("recognises TypeORM's released query runner: the transaction's connection was dropped and released", () => {
    expect503(new QueryRunnerAlreadyReleasedError(), 'QueryRunnerAlreadyReleasedError');
    expect503(new QueryRunnerProviderAlreadyReleasedError(), 'QueryRunnerProviderAlreadyReleasedError');
  });

  it('answers 400 invalid_value for a character the database cannot store (22021, 22P05), without the driver message', () => {
    for (const [code, message] of [
      ['22021', 'invalid byte sequence for encoding "UTF8": 0x00'],
      ['22P05', 'unsupported Unicode escape sequence'],
    ] as const) {
      const error = queryFailed(databaseError(message, code));
      expect(isConnectionLoss(error), code).to.equal(false);
      const translated = translateDatabaseError(error)!;
      expect(translated.status, code).to.equal(400);
      expect(translated.code, code).to.equal('invalid_value');
      expect(translated.message, code).not.to.include(message);
    }
  });

  it('leaves everything else alone: constraint errors keep their answers, unknown errors stay 500', () => {
    const duplicate = queryFailed(databaseError('duplicate key value violates unique constraint "products_pkey"', '23505'));
    expect(isConnectionLoss(duplicate)).to.equal(false);
    expect(translateDatabaseError(duplicate)!.status).to.equal(409);
    const timeout = queryFailed(databaseError('canceling statement due to statement timeout', '57014'));
    expect(isConnectionLoss(timeout)).to.equal(false);
    expect(translateDatabaseError(timeout)!.status).to.equal(503);
    for (const error of [
      new Error('boom'),
      new Error('Connection terminated by the user interface'),
      queryFailed(databaseError('relation "nope" does not exist', '42P01')),
      databaseError('password authentication failed for user "x"', '28P01', 'FATAL'),
      Object.assign(new Error('no such file'), { code: 'ENOENT' }),
      'Connection terminated',
      undefined,
      null,
    ]) {
      expect(isConnectionLoss(error), String(error)).to.equal(false);
      expect(toAppError(error)).to.be.instanceOf(InternalError);
    }
    // A cause that points back at itself does not loop.
    const loop = new Error('loop') as Error & { cause?: unknown };
    loop.cause = loop;
    expect(isConnectionLoss(loop)).to.equal(false);
  });
});
