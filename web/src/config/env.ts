/**
 * Where the API lives. Empty means the same origin as the site (the gateway serves both), which
 * keeps cookies first-party. `VITE_API_BASE_URL` overrides it for a split deployment.
 */
export const apiBaseUrl: string = (import.meta.env.VITE_API_BASE_URL ?? '').replace(/\/+$/, '');
