import { Type } from 'typebox';
import { defineEvent } from '../envelope.ts';
import { organizationEvents } from './organizations.events.ts';

/** A person created an account. No e-mail address travels on the bus: consumers ask identity. */
export const userRegistered = defineEvent(
  'identity.user.registered',
  1,
  Type.Object({
    userId: Type.String({ format: 'uuid' }),
    accountType: Type.String(),
    registeredAt: Type.String({ format: 'date-time' }),
  }),
);

export const userVerified = defineEvent(
  'identity.user.verified',
  1,
  Type.Object({
    userId: Type.String({ format: 'uuid' }),
    verifiedAt: Type.String({ format: 'date-time' }),
  }),
);

export const profileUpdated = defineEvent(
  'identity.profile.updated',
  1,
  Type.Object({
    userId: Type.String({ format: 'uuid' }),
    fields: Type.Array(
      Type.Union([
        Type.Literal('full_name'),
        Type.Literal('avatar_url'),
        Type.Literal('account_type'),
        Type.Literal('role'),
      ]),
    ),
  }),
);

/**
 * A person deleted their account: identity has erased it; billing ends their plans and forgets the
 * addresses it kept, provisioning removes their devices (the nodes drop the peers). Only the id.
 */
export const userDeleted = defineEvent(
  'identity.user.deleted',
  1,
  Type.Object({
    userId: Type.String({ format: 'uuid' }),
    deletedAt: Type.String({ format: 'date-time' }),
  }),
);

/**
 * The Quietwire operator suspended a person's account, or lifted that (issue #26): provisioning
 * holds the person's devices off while it lasts. The reason stays with identity.
 */
export const userSuspensionChanged = defineEvent(
  'identity.user.suspension-changed',
  1,
  Type.Object({
    userId: Type.String({ format: 'uuid' }),
    suspended: Type.Boolean(),
    changedAt: Type.String({ format: 'date-time' }),
  }),
);

export const identityEvents = [
  userRegistered,
  userVerified,
  profileUpdated,
  userDeleted,
  userSuspensionChanged,
  ...organizationEvents,
];
