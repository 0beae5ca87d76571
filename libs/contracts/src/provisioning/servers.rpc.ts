import { Type } from 'typebox';
import { PublicRegionSchema } from '../http/servers.http.ts';
import { defineRpc } from '../rpc.ts';

/**
 * The public /servers list (issue #23): regions and cities with live status, from provisioning's
 * nodes; asked without a caller (the page is public) and answered with no address, host name or
 * count of people.
 */
export const publicServersRpc = defineRpc(
  'provisioning.rpc.public-servers',
  Type.Object({}),
  Type.Object({ regions: Type.Array(PublicRegionSchema) }),
);
