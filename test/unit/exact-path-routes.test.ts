/**
 * Dispatch by map (exactPathRoutes, api/http/router.ts): a method and a path without parameters are
 * served by the row the router itself would run first; everything else (paths with parameters, other
 * spellings, paths a router before it serves) goes on to the routers unchanged.
 */
import { expect } from 'chai';
import Router, { type RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import { exactPathRoutes } from '../../api/http/router';

function routers(): { api: Router; system: Router; ran: string[] } {
  const ran: string[] = [];
  const api = new Router({ prefix: '/api/v1' });
  const row = (name: string): RouterMiddleware => {
    return async (ctx) => {
      ran.push(`${name} ${JSON.stringify(ctx.params)}`);
    };
  };
  // Registration order as buildRouter sorts it: static segments before parameters.
  api.register('/catalog/public/search', ['GET'], row('search'), { name: 'storefront.search' });
  api.register('/catalog/products/page', ['GET'], row('page'), { name: 'products.page' });
  api.register('/catalog/products/:id', ['GET', 'DELETE'], row('product'), { name: 'products.get' });
  api.register('/openapi.json', ['GET'], row('api-openapi'), { name: 'shadowed' });
  const system = new Router();
  system.get('/api/v1/openapi.json', async () => {
    ran.push('system-openapi');
  });
  return { api, system, ran };
}

async function dispatch(middleware: Koa.Middleware, method: string, path: string): Promise<{ nexted: boolean; ctx: Koa.Context }> {
  const ctx = { method, path, request: {} } as unknown as Koa.Context;
  let nexted = false;
  await middleware(ctx, async () => {
    nexted = true;
  });
  return { nexted, ctx };
}

describe('exactPathRoutes (api/http/router.ts)', () => {
  it('serves a static path for its methods (HEAD with GET) with empty params and the route recorded', async () => {
    const { api, system, ran } = routers();
    const fast = exactPathRoutes(api, [system]);
    const get = await dispatch(fast, 'GET', '/api/v1/catalog/public/search');
    expect(get.nexted).to.equal(false);
    expect(get.ctx.params).to.deep.equal({});
    expect((get.ctx as unknown as Record<string, unknown>)._matchedRoute).to.equal('/api/v1/catalog/public/search');
    expect((get.ctx as unknown as Record<string, unknown>)._matchedRouteName).to.equal('storefront.search');
    expect((await dispatch(fast, 'HEAD', '/api/v1/catalog/public/search')).nexted).to.equal(false);
    expect((await dispatch(fast, 'GET', '/api/v1/catalog/products/page')).nexted).to.equal(false);
    expect(ran).to.deep.equal(['search {}', 'search {}', 'page {}']);
  });

  it('leaves everything else to the routers', async () => {
    const { api, system, ran } = routers();
    const fast = exactPathRoutes(api, [system]);
    for (const [method, path] of [
      ['POST', '/api/v1/catalog/public/search'], // another method: 405 comes from the fallback
      ['OPTIONS', '/api/v1/catalog/public/search'],
      ['GET', '/api/v1/catalog/public/search/'], // trailing slash
      ['GET', '/API/V1/catalog/public/search'], // other letter case
      ['GET', '/api/v1/catalog/products/0190a5b2-0000-7000-8000-000000000000'], // parameters
      ['DELETE', '/api/v1/catalog/products/page'], // the static row has no DELETE; the parameter row answers
      ['GET', '/api/v1/openapi.json'], // the system router runs before and serves it
      ['GET', '/api/v1/nothing'],
    ] as const)
      expect((await dispatch(fast, method, path)).nexted, `${method} ${path}`).to.equal(true);
    expect(ran).to.deep.equal([]);
  });
});
