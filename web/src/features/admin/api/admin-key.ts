/** Every console query starts with this key; a mutation refreshes the lists it changes under it. */
export const adminKey = ['admin'] as const;
