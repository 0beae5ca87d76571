const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is a UUID (any case). An id in a path that is not one names nothing: the gateway
 * and each service answer it as not found before asking the database.
 */
export function isUuid(value: string): boolean {
  return uuid.test(value);
}
