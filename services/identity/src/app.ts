import type { ServiceDefinition } from '@qw/platform';

/** The identity service: users, credentials, sessions, profiles, admin list, organizations and members. */
export const identityService: ServiceDefinition<unknown> = {
  name: 'identity',
  version: '0.1.0',
  migrations: new URL('../migrations/', import.meta.url),
};
