import { Type, type Static } from 'typebox';

/**
 * "Am I protected?" (issue #25): every node answers HTTP on a tunnel-only address, the same on
 * every node (100.64.0.254 and <ula>:ffff::fe, outside the policy resolvers' masks 1–31), so only a
 * request that came through a Quietwire tunnel reaches it. The node says which peer (public key)
 * the request came from, which the web app maps to the person's own device.
 */
export const tunnelCheckIpv4 = '100.64.0.254';
export const tunnelCheckUrl = `http://${tunnelCheckIpv4}/`;

export const TunnelCheckAnswerSchema = Type.Object({
  /** True when the request came from one of the node's peers, through the tunnel. */
  through_tunnel: Type.Boolean(),
  /** The peer the request came from (its WireGuard public key); null when not through the tunnel. */
  public_key: Type.Union([Type.String({ minLength: 44, maxLength: 44 }), Type.Null()]),
  /** The node's name, as its agent registered it. */
  node: Type.String(),
  /** The resolver addresses on this node (its own tunnel addresses: the DNS of a config without blocking). */
  resolvers: Type.Array(Type.String()),
});
export type TunnelCheckAnswer = Static<typeof TunnelCheckAnswerSchema>;
