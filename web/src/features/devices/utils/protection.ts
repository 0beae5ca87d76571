import type { ConnectionCheckAnswer, TunnelCheckAnswer } from '@qw/contracts';
import { serverText } from './device-facts';

type Device = {
  name: string;
  public_key: string | null;
  node: { name: string; region: string; city: string | null } | null;
};

/**
 * What "Am I protected?" shows: a state, its sentence, and what to do next when not protected.
 * `deviceUnknown`: protected by the gateway's check, which sees a server, never which device.
 */
export type Protection =
  | { state: 'checking' }
  | { state: 'protected'; text: string; resolvers: string[]; deviceUnknown: boolean }
  | { state: 'not_protected'; text: string }
  | { state: 'cannot_check'; text: string };

const notProtected: Protection = {
  state: 'not_protected',
  text: 'Not protected: this browser does not reach the internet through a Quietwire tunnel.',
};

/**
 * Issue #25. Two checks, each undefined while it runs and null when it did not answer:
 * `answer`, the node's own on the tunnel-only address (it names the device's key; asked only from
 * an http:// page, since browsers block a secure page's request to it), and `gateway`, the
 * gateway's (the request arrived from a server's egress address; it names the server, never a
 * device, and works over HTTPS). `secure`: the page is HTTPS.
 */
export function protection(
  answer: TunnelCheckAnswer | null | undefined,
  gateway: ConnectionCheckAnswer | null | undefined,
  devices: readonly Device[],
  secure: boolean,
): Protection {
  if (answer?.through_tunnel) {
    const device = devices.find((d) => d.public_key !== null && d.public_key === answer.public_key);
    const via = device?.node ? serverText(device.node) : `server ${answer.node}`;
    const text = device
      ? `Protected: this browser is on ${device.name}, via ${via}.`
      : `Protected: this browser is on a Quietwire tunnel, via ${via}, but not one of your devices.`;
    return { state: 'protected', text, resolvers: answer.resolvers, deviceUnknown: false };
  }
  if (answer === undefined || gateway === undefined) return { state: 'checking' };
  if (gateway?.protected && gateway.server)
    return {
      state: 'protected',
      text: `Protected: this browser reaches the internet through Quietwire, via ${serverText(gateway.server)}.`,
      resolvers: gateway.resolvers,
      deviceUnknown: true,
    };
  if (gateway === null && secure)
    return {
      state: 'cannot_check',
      text: 'The check did not answer, so this page cannot tell whether this browser is protected. Check again, or open the check in a new tab.',
    };
  return notProtected;
}
