import type { TunnelCheckAnswer } from '@qw/contracts';
import { serverText } from './device-facts';

type Device = {
  name: string;
  public_key: string | null;
  node: { name: string; region: string; city: string | null } | null;
};

/** What "Am I protected?" shows: a state, its sentence, and what to do next when not protected. */
export type Protection =
  | { state: 'checking' }
  | { state: 'protected'; text: string; resolvers: string[] }
  | { state: 'not_protected'; text: string }
  | { state: 'cannot_check'; text: string };

/**
 * Issue #25. `answer`: the node's answer on the check address, or null when nothing answered
 * (no tunnel, or the browser blocked the request); `secure`: the page is HTTPS, where browsers
 * block a request to the check's http:// address, so a missing answer proves nothing there.
 */
export function protection(
  answer: TunnelCheckAnswer | null | undefined,
  devices: readonly Device[],
  secure: boolean,
): Protection {
  if (answer === undefined) return { state: 'checking' };
  if (answer?.through_tunnel) {
    const device = devices.find((d) => d.public_key !== null && d.public_key === answer.public_key);
    const via = device?.node ? serverText(device.node) : `server ${answer.node}`;
    const text = device
      ? `Protected: this browser is on ${device.name}, via ${via}.`
      : `Protected: this browser is on a Quietwire tunnel, via ${via}, but not one of your devices.`;
    return { state: 'protected', text, resolvers: answer.resolvers };
  }
  if (answer === null && secure)
    return {
      state: 'cannot_check',
      text: 'This page cannot ask the tunnel itself: browsers block a secure page from reaching the check address. Open the check in a new tab to see whether this device is protected.',
    };
  return {
    state: 'not_protected',
    text: 'Not protected: this browser does not reach the internet through a Quietwire tunnel.',
  };
}
