/**
 * Split tunnelling, chosen per device (Tunnel privacy): what its config sends into the tunnel.
 * `all` (the default) is everything; `except_local` leaves local networks (printers, casting, the
 * router) outside; `custom` sends only the routes the person lists, and the resolver (libs/wireguard
 * `allowedIpsFor` writes the `AllowedIPs` line).
 */
export const splitTunnelPresets = ['all', 'except_local', 'custom'] as const;
export type SplitTunnelPresetId = (typeof splitTunnelPresets)[number];

export const splitTunnelLabel: Readonly<Record<SplitTunnelPresetId, string>> = {
  all: 'All traffic',
  except_local: 'All traffic except local networks',
  custom: 'Only the routes I list',
};

/** At most this many custom routes per device: each is a kernel route on the device. */
export const maxCustomRoutes = 32;

/** The routes as a person types them: one per line, or separated by commas or spaces. */
export function routeEntriesOf(text: string): string[] {
  return text.split(/[\s,]+/).filter((entry) => entry !== '');
}
