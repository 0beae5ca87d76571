import { deleteAccountRpc, exportIdentityDataRpc } from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { AccountDataService } from '../accounts/account-data.service.ts';

export function accountDataEndpoints(accountData: AccountDataService): RpcEndpoint[] {
  return [
    endpoint(exportIdentityDataRpc, (_data, caller) => accountData.export(caller)),
    endpoint(deleteAccountRpc, (data, caller) => accountData.delete(caller, data.password)),
  ];
}
