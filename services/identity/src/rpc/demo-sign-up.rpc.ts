import { AppError, demoSignUpRpc } from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { AccountsService } from '../accounts/accounts.service.ts';

/**
 * The demo history's accounts (`identity.rpc.demo-sign-up`): answered only with DEMO_TOOLS on;
 * otherwise it does not exist. No user caller: NATS permissions decide who may ask (not the gateway).
 */
export function demoSignUpEndpoint(accounts: AccountsService, demoTools: boolean): RpcEndpoint {
  return endpoint(demoSignUpRpc, async (data) => {
    if (!demoTools) throw new AppError('not_found', 'The demo tools are off (DEMO_TOOLS).');
    return accounts.demoSignUp(data);
  });
}
