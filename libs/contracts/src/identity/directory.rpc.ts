import { Type } from 'typebox';
import { defineRpc } from '../rpc.ts';

/** The operator console's questions to identity about the fleet's people (platform admins only). */
const Uuid = Type.String({ format: 'uuid' });
const Count = Type.Integer({ minimum: 0 });

/** The overview's Users and Organizations tiles (`exclude_test`: people of test accounts left out). */
export const adminPeopleCountsRpc = defineRpc(
  'identity.rpc.admin-people-counts',
  Type.Object({ exclude_test: Type.Optional(Type.Boolean()) }),
  Type.Object({ users: Count, organizations: Count }),
);
/** Owners' e-mails and names and organizations' names, by id (a page of devices at a time). */
export const adminDirectoryRpc = defineRpc(
  'identity.rpc.admin-directory',
  Type.Object({
    user_ids: Type.Array(Uuid, { maxItems: 1000 }),
    org_ids: Type.Array(Uuid, { maxItems: 1000 }),
  }),
  Type.Object({
    users: Type.Array(
      Type.Object({ id: Uuid, email: Type.String(), full_name: Type.Union([Type.String(), Type.Null()]) }),
    ),
    organizations: Type.Array(Type.Object({ id: Uuid, name: Type.String() })),
  }),
);
/** The ids of people whose e-mail contains `q` (case-insensitive), at most `limit`; `truncated` when there are more. */
export const adminFindUsersRpc = defineRpc(
  'identity.rpc.admin-find-users',
  Type.Object({
    q: Type.String({ minLength: 1, maxLength: 100 }),
    limit: Type.Integer({ minimum: 1, maximum: 10_000 }),
  }),
  Type.Object({ user_ids: Type.Array(Uuid), truncated: Type.Boolean() }),
);
/**
 * Test accounts ever are few (operators' and developers' own): their ids, at most `testAccountsMax`
 * (`truncated` past it), so provisioning and telemetry leave their devices out of a figure; and
 * the test organizations' (members all test accounts), at most as many, so the gateway can have
 * analytics leave out every test customer.
 */
export const testAccountsMax = 1_000;
export const adminTestUserIdsRpc = defineRpc(
  'identity.rpc.admin-test-user-ids',
  Type.Object({}),
  Type.Object({ user_ids: Type.Array(Uuid), org_ids: Type.Array(Uuid), truncated: Type.Boolean() }),
);
