/** Business intelligence reports of a store. */
import { defineRoutes, type RouteRequest } from '../http/route';
import { date, storeId } from '../http/schema-types';
import { biDays, biLimit, biMonthsBack } from './bi.schemas';
import {
  CohortsResponse,
  CustomerLtvResponse,
  FunnelResponse,
  KpisResponse,
  ProfitLossResponse,
  RevenueTimeseriesResponse,
  TopProductsResponse,
} from './bi.responses';
import * as BI from './bi.service';

type Params = Record<string, string>;

const UNTYPED =
  'days, limit and monthsBack are not typed by the specification: days 1 to 365 (default 30), limit 1 to 100 (default 50), monthsBack 1 to 36 (default 12).';

export const biRoutes = defineRoutes({ tag: 'bi', auth: 'merchant' }, [
  {
    operationId: 'bi.profitLoss',
    method: 'GET',
    path: '/bi/profit-loss',
    summary: 'Profit and loss of a store between two dates',
    description: 'from and to (YYYY-MM-DD, inclusive) are required because they define the report, not a list filter.',
    query: { storeId: storeId(), from: date().required(), to: date().required() },
    response: ProfitLossResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => BI.profitLoss(req.context, req.query as BI.ProfitLossQuery),
  },
  {
    operationId: 'bi.kpis',
    method: 'GET',
    path: '/bi/kpis',
    summary: 'Key figures of a store over the last days',
    description: UNTYPED,
    query: { storeId: storeId(), days: biDays() },
    response: KpisResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => BI.kpis(req.context, req.query as BI.DaysQuery),
  },
  {
    operationId: 'bi.topProducts',
    method: 'GET',
    path: '/bi/top-products',
    summary: 'Best-selling products of a store over the last days',
    description: UNTYPED,
    query: { storeId: storeId(), days: biDays(), limit: biLimit() },
    response: TopProductsResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => BI.topProducts(req.context, req.query as BI.TopProductsQuery),
  },
  {
    operationId: 'bi.revenueTimeseries',
    method: 'GET',
    path: '/bi/revenue-timeseries',
    summary: 'Daily revenue of a store over the last days',
    description: UNTYPED,
    query: { storeId: storeId(), days: biDays() },
    response: RevenueTimeseriesResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => BI.revenueTimeseries(req.context, req.query as BI.DaysQuery),
  },
  {
    operationId: 'bi.cohorts',
    method: 'GET',
    path: '/bi/cohorts',
    summary: 'Monthly customer cohorts of a store and their retention',
    description: UNTYPED,
    query: { storeId: storeId(), monthsBack: biMonthsBack() },
    response: CohortsResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => BI.cohorts(req.context, req.query as BI.CohortsQuery),
  },
  {
    operationId: 'bi.funnel',
    method: 'GET',
    path: '/bi/funnel',
    summary: 'Conversion funnel of a store over the last days',
    description: UNTYPED,
    query: { storeId: storeId(), days: biDays() },
    response: FunnelResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => BI.funnel(req.context, req.query as BI.DaysQuery),
  },
  {
    operationId: 'bi.customerLtv',
    method: 'GET',
    path: '/bi/customer-ltv',
    summary: 'Customers of a store by lifetime value',
    description: UNTYPED,
    query: { storeId: storeId(), limit: biLimit() },
    response: CustomerLtvResponse,
    status: 200,
    handler: (req: RouteRequest<Params>) => BI.customerLtv(req.context, req.query as BI.LimitQuery),
  },
]);
