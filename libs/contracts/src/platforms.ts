export const platforms = ['ios', 'android', 'macos', 'windows', 'linux', 'router', 'other'] as const;
export type Platform = (typeof platforms)[number];

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && (platforms as readonly string[]).includes(value);
}

export const platformLabels: Readonly<Record<Platform, string>> = {
  ios: 'iOS', android: 'Android', macos: 'macOS', windows: 'Windows', linux: 'Linux', router: 'Router', other: 'Other',
};
