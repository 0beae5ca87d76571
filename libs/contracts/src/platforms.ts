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

/**
 * Leak protection (issue #25): how to keep traffic from leaving outside the tunnel, per platform,
 * shown with the setup steps. Linux's kill switch is an option of the downloaded file.
 */
export const leakProtection: Readonly<Record<Platform, string>> = {
  ios: 'In the WireGuard app, edit the tunnel and turn on On-Demand for Wi-Fi and cellular, so the tunnel is up whenever the phone is online. iOS lets no VPN app block traffic while the tunnel is off.',
  android:
    'In Settings, open Network & internet, then VPN, then the gear beside WireGuard, and turn on "Always-on VPN" and "Block connections without VPN".',
  macos:
    'In the WireGuard app, edit the tunnel and turn on On-Demand for Ethernet and Wi-Fi, so the tunnel comes back whenever the Mac is online.',
  windows:
    'In the WireGuard app, edit the tunnel and tick "Block untunneled traffic (kill-switch)": nothing leaves the computer outside the tunnel while it is active.',
  linux:
    'Tick "Block traffic outside the tunnel" before you download: the file then carries wg-quick\'s kill switch (iptables and ip6tables rules added by PostUp, removed by PreDown), so nothing leaves the computer outside the tunnel while it is up.',
  router:
    "In the router's firewall, let the devices behind it out only through the WireGuard interface, so they lose the internet rather than leave without the tunnel.",
  other: 'If your WireGuard client can block traffic outside the tunnel (a kill switch), turn it on.',
};
