import { Type } from 'typebox';
import { defineEvent } from '../envelope.ts';
import { countedPagePaths } from '../analytics/analytics.ts';

/**
 * Page views of the public site, counted by the gateway per UTC day and path and sent every few
 * seconds as one event per (day, path). Nothing about the visitor travels: no address, cookie,
 * session or identifier, only how many views a page had.
 */
export const visitsCounted = defineEvent(
  'gateway.visits.counted',
  1,
  Type.Object({
    day: Type.String({ format: 'date' }),
    path: Type.Enum([...countedPagePaths]),
    views: Type.Integer({ minimum: 1 }),
  }),
);

export const gatewayEvents = [visitsCounted];
