import { AppError, isPlatform, type Platform } from '@qw/contracts';

export function validPlatform(raw: unknown): Platform {
  if (!isPlatform(raw)) throw new AppError('validation_failed', 'Invalid platform.', { field: 'platform' });
  return raw;
}
