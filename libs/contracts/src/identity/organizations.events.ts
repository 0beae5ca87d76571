import { Type } from 'typebox';
import { defineEvent } from '../envelope.ts';

const Uuid = Type.String({ format: 'uuid' });
const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')]);
/** Who did it (null: the system, e.g. a subscription that ended). */
const Actor = Type.Union([Uuid, Type.Null()]);

/** A person joined an organization (the owner at purchase, or by an invitation). */
export const memberJoined = defineEvent(
  'identity.org.member-joined',
  1,
  Type.Object({ orgId: Uuid, userId: Uuid, role: Role, actorId: Actor, at: Type.String({ format: 'date-time' }) }),
);
export const memberRoleChanged = defineEvent(
  'identity.org.member-role-changed',
  1,
  Type.Object({ orgId: Uuid, userId: Uuid, role: Role, previousRole: Role, actorId: Actor }),
);
/** A person is no longer a member: removed by an owner or admin, or left. Their organization devices go. */
export const memberLeft = defineEvent(
  'identity.org.member-left',
  1,
  Type.Object({
    orgId: Uuid,
    userId: Uuid,
    actorId: Actor,
    reason: Type.Union([Type.Literal('removed'), Type.Literal('left')]),
  }),
);
/**
 * Suspended (its subscription ended, or an operator suspended it) or active again. Also sent when
 * only an operator's hold changed (`suspendedByOperator`), so members are told the right reason.
 */
export const organizationStatusChanged = defineEvent(
  'identity.org.status-changed',
  1,
  Type.Object({
    orgId: Uuid,
    isActive: Type.Boolean(),
    plan: Type.String(),
    /** An operator holds it suspended (the service's decision, not its plan); absent in older events: false. */
    suspendedByOperator: Type.Optional(Type.Boolean()),
  }),
);

export const organizationEvents = [memberJoined, memberRoleChanged, memberLeft, organizationStatusChanged];
