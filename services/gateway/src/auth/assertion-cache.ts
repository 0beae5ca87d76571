import type { Caller } from '@qw/contracts';
import { dropExpired } from './time-ordered.ts';

/**
 * The caller assertion signed once and used again (issue #24): signing an Ed25519 assertion on
 * every request cost the gateway a signature and every service it reached a verification (their
 * verifiers cache by token, so a token used again is checked once). An assertion says only who
 * the caller is and what they may do (user, account type, admin, verified address), so a person
 * whose rights are unchanged is served with the same assertion for `reuseMs`; a change of rights
 * (identity's answer, at most a second old) is another caller and gets a new one at once.
 * `reuseMs` leaves every request made with it the assertion's whole RPC timeout to finish.
 */
export function reusedAssertions(
  sign: (caller: Caller) => Caller,
  options: { reuseMs: number; max?: number; now?: () => number },
): (caller: Caller) => Caller {
  const max = options.max ?? 10_000;
  const now = options.now ?? Date.now;
  const signed = new Map<string, { caller: Caller; until: number }>();
  return (caller) => {
    if (!caller.userId || options.reuseMs <= 0) return sign(caller);
    const key = `${caller.userId}\u0000${caller.accountType}\u0000${caller.isAdmin}\u0000${caller.emailVerified}`;
    const at = now();
    const held = signed.get(key);
    if (held && held.until > at) return held.caller;
    const fresh = sign(caller);
    signed.delete(key);
    dropExpired(signed, at, max);
    signed.set(key, { caller: fresh, until: at + options.reuseMs });
    return fresh;
  };
}
