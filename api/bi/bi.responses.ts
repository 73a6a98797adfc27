/** The response schemas of the business intelligence reports (docs/insight.md); tests check every answer against them. */
import Joi from 'joi';
import { dto } from '../http/route';

const amount = () => Joi.number().required();
const count = () => Joi.number().integer().min(0).required();
const share = () => Joi.number().min(0).max(1).allow(null).required();
const day = () => Joi.string().isoDate().required();

const windowKeys = {
  storeId: Joi.string().required(),
  currency: Joi.string().required(),
  timeZone: Joi.string().required().description("The store's time zone: the days of the window are its days."),
  days: count(),
  from: day().description('First day of the window (days − 1 days before today).'),
  to: day().description("Last day of the window: today in the store's time zone (up to now)."),
};

export const ProfitLossResponse = dto(
  'ProfitLossResponse',
  Joi.object({
    storeId: Joi.string().required(),
    currency: Joi.string().required(),
    timeZone: Joi.string().required(),
    from: day(),
    to: day(),
    orders: count().description('Placed orders of the period.'),
    grossSales: amount().description('Σ subtotal (the lines as priced) of the placed orders of the period.'),
    discounts: Joi.valid(null).required().description('Unknown: orders keep the prices after pricing rules, not the discount (see notes).'),
    shipping: amount().description('Σ (total − subtotal): what customers paid for shipping.'),
    refunds: amount().description('Σ refunded of the payments of these orders (by order date).'),
    netRevenue: amount().description('grossSales + shipping − refunds.'),
    costOfGoods: Joi.valid(null).required().description('Unknown: products carry no cost price.'),
    grossProfit: Joi.valid(null).required().description('Unknown, as the cost of goods is.'),
    notes: Joi.array().items(Joi.string()).required(),
  }),
);

export const KpisResponse = dto(
  'KpisResponse',
  Joi.object({
    ...windowKeys,
    revenue: amount().description('Σ total (shipping included, before refunds) of the placed orders of the window.'),
    orders: count(),
    averageOrderValue: Joi.number().allow(null).required().description('revenue / orders, half up; null without orders.'),
    customers: count().description('Distinct customers with a placed order in the window.'),
    newCustomers: count().description('Of those, the customers whose first placed order in the store is in the window.'),
    returningCustomers: count().description('customers − newCustomers.'),
    conversionRate: Joi.valid(null).required(),
    conversionRateUnavailable: Joi.string().required().description('Why conversionRate is null.'),
  }),
);

export const TopProductsResponse = dto(
  'TopProductsResponse',
  Joi.object({
    ...windowKeys,
    items: Joi.array()
      .items(
        Joi.object({
          productId: Joi.string().allow(null).required().description('null for lines of deleted products.'),
          title: Joi.string().required(),
          quantity: count(),
          orders: count(),
          revenue: amount().description('Σ line totals.'),
        }).label('TopProduct'),
      )
      .required()
      .description('By revenue, then quantity, highest first.'),
  }),
);

export const RevenueTimeseriesResponse = dto(
  'RevenueTimeseriesResponse',
  Joi.object({
    ...windowKeys,
    points: Joi.array()
      .items(Joi.object({ date: day(), orders: count(), revenue: amount() }).label('RevenuePoint'))
      .required()
      .description('One point per day of the window, oldest first; days without orders are zero.'),
  }),
);

export const CohortsResponse = dto(
  'CohortsResponse',
  Joi.object({
    storeId: Joi.string().required(),
    timeZone: Joi.string().required(),
    monthsBack: count(),
    cohorts: Joi.array()
      .items(
        Joi.object({
          month: Joi.string().required().description('YYYY-MM: the month of the customers’ first placed order.'),
          customers: count(),
          retention: Joi.array()
            .items(
              Joi.object({
                monthOffset: count(),
                month: Joi.string().required(),
                customers: count().description('Customers of the cohort with a placed order in that month.'),
                rate: share(),
              }).label('CohortRetention'),
            )
            .required(),
        }).label('Cohort'),
      )
      .required(),
  }),
);

export const FunnelResponse = dto(
  'FunnelResponse',
  Joi.object({
    ...windowKeys,
    productViews: Joi.valid(null).required(),
    productViewsUnavailable: Joi.string().required(),
    productViewsLifetime: count().description("Σ of the store's products' lifetime view counters."),
    stages: Joi.array()
      .items(
        Joi.object({
          stage: Joi.string().valid('CHECKOUT_STARTED', 'CHECKOUT_PAID', 'ORDER_PLACED', 'ORDER_PAID').required(),
          count: count(),
          rateFromPrevious: share(),
        }).label('FunnelStage'),
      )
      .required(),
  }),
);

export const CustomerLtvResponse = dto(
  'CustomerLtvResponse',
  Joi.object({
    storeId: Joi.string().required(),
    currency: Joi.string().required(),
    items: Joi.array()
      .items(
        Joi.object({
          customerId: Joi.string().required(),
          name: Joi.string().allow(null).required(),
          email: Joi.string().allow(null).required(),
          orders: count(),
          lifetimeRevenue: amount(),
          averageOrderValue: amount(),
          firstOrderAt: Joi.string().isoDate().required(),
          lastOrderAt: Joi.string().isoDate().required(),
        }).label('CustomerLifetimeValue'),
      )
      .required(),
  }),
);
