/** The services that answer request/reply and own a schema. The gateway and node agents own none. */
export const backendServices = ['identity', 'billing', 'provisioning', 'telemetry', 'analytics'] as const;
export type BackendService = (typeof backendServices)[number];

export function isBackendService(value: unknown): value is BackendService {
  return typeof value === 'string' && (backendServices as readonly string[]).includes(value);
}
