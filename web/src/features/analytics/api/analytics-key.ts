/** Every Analytics query starts with this key, so a rebuild that finishes can refresh them all at once. */
export const analyticsKey = ['analytics'] as const;
