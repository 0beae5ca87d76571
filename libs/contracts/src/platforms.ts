export const platforms = ['ios', 'android', 'macos', 'windows', 'linux', 'router', 'other'] as const;
export type Platform = (typeof platforms)[number];

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && (platforms as readonly string[]).includes(value);
}

export const platformLabels: Readonly<Record<Platform, string>> = {
  ios: 'iOS',
  android: 'Android',
  macos: 'macOS',
  windows: 'Windows',
  linux: 'Linux',
  router: 'Router',
  other: 'Other',
};

/** Three steps per platform, for the mail and the config page alike. */
export const setupSteps: Readonly<Record<Platform, readonly [string, string, string]>> = {
  ios: [
    'Install WireGuard from the App Store.',
    'Tap +, then "Create from QR code", and scan the QR code.',
    'Turn the tunnel on.',
  ],
  android: [
    'Install WireGuard from Google Play.',
    'Tap +, then "Scan from QR code", and scan the QR code.',
    'Turn the tunnel on.',
  ],
  macos: [
    'Install WireGuard from the Mac App Store.',
    'Choose "Import tunnel(s) from file" and pick the .conf file.',
    'Click Activate.',
  ],
  windows: [
    'Install WireGuard from wireguard.com/install.',
    'Click "Import tunnel(s) from file" and pick the .conf file.',
    'Click Activate.',
  ],
  linux: [
    'Install wireguard-tools with your package manager.',
    'Copy the .conf file to /etc/wireguard/.',
    'Run: sudo wg-quick up <file name without .conf>.',
  ],
  router: [
    "Open your router's WireGuard (VPN client) settings.",
    'Import the .conf file, or copy its fields one by one.',
    'Enable the connection and route the devices you want through it.',
  ],
  other: [
    'Install a WireGuard client for your device.',
    'Import the .conf file, or scan the QR code.',
    'Turn the tunnel on.',
  ],
};
