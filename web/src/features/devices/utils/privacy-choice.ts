import {
  blockingCategories,
  routeEntriesOf,
  type BlockingCategory,
  type DevicePrivacyInput,
  type SplitTunnelPresetId,
  splitTunnelLabel,
  splitTunnelPresets,
} from '@qw/contracts';

/** A device's tunnel privacy as the forms hold it: the routes as typed, one per line. */
export type PrivacyChoice = { blocking: BlockingCategory[]; split: SplitTunnelPresetId; routes: string };

/** What a new device gets unless the person chooses otherwise (as provisioning's default). */
export const defaultPrivacyChoice: PrivacyChoice = { blocking: [], split: 'all', routes: '' };

export const splitTunnelOptions = splitTunnelPresets.map((preset) => ({
  value: preset,
  label: splitTunnelLabel[preset],
}));

export function isSplitTunnelPreset(value: string): value is SplitTunnelPresetId {
  return (splitTunnelPresets as readonly string[]).includes(value);
}

/** The choice a device has now. */
export function privacyChoiceOf(device: {
  blocking: readonly string[];
  split_tunnel: SplitTunnelPresetId;
  custom_routes: readonly string[];
}): PrivacyChoice {
  return {
    blocking: blockingCategories.filter((category) => device.blocking.includes(category)),
    split: device.split_tunnel,
    routes: device.custom_routes.join('\n'),
  };
}

/** Turns a category on or off, keeping the contracts' order. */
export function withCategory(choice: PrivacyChoice, category: BlockingCategory, on: boolean): PrivacyChoice {
  const blocking = blockingCategories.filter((c) => (c === category ? on : choice.blocking.includes(c)));
  return { ...choice, blocking };
}

/** The request's privacy fields; routes only with "Only the routes I list". */
export function privacyBody(choice: PrivacyChoice): DevicePrivacyInput {
  return {
    blocking: [...choice.blocking],
    split_tunnel: choice.split,
    ...(choice.split === 'custom' ? { custom_routes: routeEntriesOf(choice.routes) } : {}),
  };
}

/** Whether two choices would write the same config (routes compared as entries, not as typed). */
export function samePrivacyChoice(a: PrivacyChoice, b: PrivacyChoice): boolean {
  if (a.split !== b.split || a.blocking.join() !== b.blocking.join()) return false;
  return a.split !== 'custom' || routeEntriesOf(a.routes).join() === routeEntriesOf(b.routes).join();
}
