import { AppError, type Profile } from '@qw/contracts';
import type { ProfileRow } from '../database.ts';

export type ProfileFields = { full_name?: string | null; avatar_url?: string | null };

/** What an update sets: trimmed, an empty value clears the field; a bad value is `validation_failed`. */
export function profileFields(input: ProfileFields): ProfileFields {
  const fields: ProfileFields = {};
  if (input.full_name !== undefined) {
    const name = input.full_name?.trim() ?? '';
    if (name.length > 100)
      throw new AppError('validation_failed', 'Full name can be at most 100 characters.', { field: 'full_name' });
    fields.full_name = name || null;
  }
  if (input.avatar_url !== undefined) {
    const url = input.avatar_url?.trim() ?? '';
    if (url.length > 2048)
      throw new AppError('validation_failed', 'Avatar URL can be at most 2,048 characters.', { field: 'avatar_url' });
    if (url && !isHttpsUrl(url))
      throw new AppError('validation_failed', 'Avatar URL must be an https:// address.', { field: 'avatar_url' });
    fields.avatar_url = url || null;
  }
  return fields;
}

/** The fields whose value differs from the stored one (only those are announced in profile.updated). */
export function changedProfileFields(
  before: Pick<ProfileRow, 'full_name' | 'avatar_url'>,
  fields: ProfileFields,
): Array<keyof ProfileFields> {
  return (Object.keys(fields) as Array<keyof ProfileFields>).filter((key) => fields[key] !== before[key]);
}

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.length > 0;
  } catch {
    return false;
  }
}

export function toProfile(row: ProfileRow): Profile {
  return {
    id: row.id,
    email: row.email,
    full_name: row.full_name,
    avatar_url: row.avatar_url,
    account_type: row.account_type,
    role: row.role ?? 'client',
  };
}
