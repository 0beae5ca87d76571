import { api } from '../../api-client';

/** POST /api/auth/logout → 204; ends the session family and clears the cookie. */
export function requestSignOut(): Promise<void> {
  return api.post<void>('/api/auth/logout', undefined, { skipAuth: true });
}
