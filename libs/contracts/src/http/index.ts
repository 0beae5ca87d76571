export * from './route.ts';
export * from './devices.http.ts';
export * from './billing.http.ts';
export * from './support.http.ts';
export * from './auth.http.ts';
export * from './organizations.http.ts';
export * from './analytics.http.ts';
export * from './admin.http.ts';
export * from './account-data.http.ts';
export * from './servers.http.ts';
export * from './admin-person.http.ts';

import { accountRoutes, authRoutes } from './auth.http.ts';
import { billingRoutes } from './billing.http.ts';
import { deviceRoutes } from './devices.http.ts';
import { organizationDeviceRoutes, organizationMemberRoutes } from './organizations.http.ts';
import { analyticsRoutes } from './analytics.http.ts';
import { adminAccountRoutes } from './admin.http.ts';
import { adminFleetRoutes, adminServerLifecycleRoutes } from './admin.http.ts';
import { enrolNodeRoute } from './servers.http.ts';
import type { HttpRoute } from './route.ts';
import { accountDataRoutes } from './account-data.http.ts';
import { supportRoutes } from './support.http.ts';
import { connectionCheckRoute, publicServersRoute } from './servers.http.ts';
import { adminPersonRoutes } from './admin-person.http.ts';

/** Every route of the gateway's API, as the permission matrix and the route-table test know them. */
export const httpRoutes: readonly HttpRoute[] = [
  ...authRoutes,
  ...accountRoutes,
  ...accountDataRoutes,
  ...deviceRoutes,
  ...organizationDeviceRoutes,
  ...analyticsRoutes,
  ...billingRoutes,
  ...supportRoutes,
  ...organizationMemberRoutes,
  ...adminAccountRoutes,
  ...adminPersonRoutes,
  ...adminFleetRoutes,
  publicServersRoute,
  connectionCheckRoute,
  ...adminServerLifecycleRoutes,
  enrolNodeRoute,
];
