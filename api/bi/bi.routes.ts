/** Business intelligence reports of a store. */
import { defineRoutes } from '../http/route';
import { date, storeId } from '../http/schema-types';
import { biDays, biLimit, biMonthsBack } from './bi.schemas';

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
    status: 200,
  },
  {
    operationId: 'bi.kpis',
    method: 'GET',
    path: '/bi/kpis',
    summary: 'Key figures of a store over the last days',
    description: UNTYPED,
    query: { storeId: storeId(), days: biDays() },
    status: 200,
  },
  {
    operationId: 'bi.topProducts',
    method: 'GET',
    path: '/bi/top-products',
    summary: 'Best-selling products of a store over the last days',
    description: UNTYPED,
    query: { storeId: storeId(), days: biDays(), limit: biLimit() },
    status: 200,
  },
  {
    operationId: 'bi.revenueTimeseries',
    method: 'GET',
    path: '/bi/revenue-timeseries',
    summary: 'Daily revenue of a store over the last days',
    description: UNTYPED,
    query: { storeId: storeId(), days: biDays() },
    status: 200,
  },
  {
    operationId: 'bi.cohorts',
    method: 'GET',
    path: '/bi/cohorts',
    summary: 'Monthly customer cohorts of a store and their retention',
    description: UNTYPED,
    query: { storeId: storeId(), monthsBack: biMonthsBack() },
    status: 200,
  },
  {
    operationId: 'bi.funnel',
    method: 'GET',
    path: '/bi/funnel',
    summary: 'Conversion funnel of a store over the last days',
    description: UNTYPED,
    query: { storeId: storeId(), days: biDays() },
    status: 200,
  },
  {
    operationId: 'bi.customerLtv',
    method: 'GET',
    path: '/bi/customer-ltv',
    summary: 'Customers of a store by lifetime value',
    description: UNTYPED,
    query: { storeId: storeId(), limit: biLimit() },
    status: 200,
  },
]);
