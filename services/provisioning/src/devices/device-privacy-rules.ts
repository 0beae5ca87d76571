import {
  AppError,
  blockingCategoriesOf,
  blockingMaskOf,
  maxCustomRoutes,
  type DevicePrivacyInput,
  type SplitTunnelPresetId,
} from '@qw/contracts';
import { checkCustomRoutes } from '@qw/wireguard';

/** A device's tunnel privacy as its row keeps it. */
export type DevicePrivacy = { blocking_mask: number; split_tunnel: SplitTunnelPresetId; custom_routes: string[] };

/**
 * A new device blocks nothing and sends everything into the tunnel unless its add form says
 * otherwise: blocking changes which names resolve (a site may stop working), so only its person
 * turns it on, and a full tunnel is what a VPN promises by default.
 */
export const defaultPrivacy: DevicePrivacy = { blocking_mask: 0, split_tunnel: 'all', custom_routes: [] };

const onlyWithCustom = () =>
  new AppError('invalid_routes', 'Routes are used only with "Only the routes I list". Choose it, or leave them out.', {
    field: 'custom_routes',
  });

function checkedRoutes(entries: readonly string[]): string[] {
  const check = checkCustomRoutes(entries, maxCustomRoutes);
  if ('problem' in check) throw new AppError('invalid_routes', check.problem, { field: 'custom_routes' });
  return check.routes;
}

/**
 * The privacy a change asks for, from what the device has: what the input leaves out is kept.
 * `custom` needs routes (given now, or those it has); routes with another preset are refused
 * rather than kept unused. Refused with 422 `invalid_routes`, naming the first bad entry.
 */
export function privacyAfter(current: DevicePrivacy, input: DevicePrivacyInput): DevicePrivacy {
  const blocking_mask = input.blocking === undefined ? current.blocking_mask : blockingMaskOf(input.blocking);
  const preset = input.split_tunnel ?? current.split_tunnel;
  if (preset !== 'custom') {
    if (input.custom_routes?.some((entry) => entry.trim() !== '')) throw onlyWithCustom();
    return { blocking_mask, split_tunnel: preset, custom_routes: [] };
  }
  const entries = input.custom_routes ?? (current.split_tunnel === 'custom' ? current.custom_routes : []);
  return { blocking_mask, split_tunnel: 'custom', custom_routes: checkedRoutes(entries) };
}

export function samePrivacy(a: DevicePrivacy, b: DevicePrivacy): boolean {
  return (
    a.blocking_mask === b.blocking_mask &&
    a.split_tunnel === b.split_tunnel &&
    a.custom_routes.length === b.custom_routes.length &&
    a.custom_routes.every((route, index) => route === b.custom_routes[index])
  );
}

/** The privacy fields of a device's view. */
export function privacyView(device: DevicePrivacy) {
  return {
    blocking: blockingCategoriesOf(device.blocking_mask),
    split_tunnel: device.split_tunnel,
    custom_routes: [...device.custom_routes],
  };
}
