import { mfaConfirmRpc, mfaDisableRpc, mfaEnrolRpc } from '@qw/contracts';
import { endpoint, type RpcEndpoint } from '@qw/platform/bus';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { MfaService } from '../mfa/mfa.service.ts';

export function mfaEndpoints(mfa: MfaService, sessions: SessionsService): RpcEndpoint[] {
  return [
    endpoint(mfaEnrolRpc, (_data, caller) => mfa.enrol(caller)),
    endpoint(mfaConfirmRpc, (data, caller) =>
      mfa.confirm(caller, data.code, (tx, userId) => sessions.issueSession(tx, userId, { twoFactorPassed: true })),
    ),
    endpoint(mfaDisableRpc, async (data, caller) => {
      await mfa.disable(caller, data.code);
      return {};
    }),
  ];
}
