const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID (any case): ids in paths and queries are checked with this before any service is asked. */
export function isUuid(value: string): boolean {
  return uuid.test(value);
}
