import { type addServerRoute, defaultNodeCapacity, isRegionId, type RouteBody } from '@qw/contracts';

/**
 * The Add server form's rules (issue #23): the form's text fields checked and turned into the
 * request body, and the server's refusal (400/409) placed by the field it names. Plain functions of
 * data, tested in web/test/server-rules.test.ts.
 */

export type AddServerBody = RouteBody<typeof addServerRoute>;
export const addServerFields = [
  'name',
  'region',
  'city',
  'endpoint',
  'tags',
  'capacity',
  'ssh_user',
  'ssh_port',
] as const;
export type AddServerField = (typeof addServerFields)[number];
/** What the form holds: every field as typed. */
export type AddServerDraft = Record<AddServerField, string>;
export type AddServerErrors = Partial<Record<AddServerField, string>>;

export const emptyAddServerDraft: AddServerDraft = {
  name: '',
  region: '',
  city: '',
  endpoint: '',
  tags: '',
  capacity: String(defaultNodeCapacity),
  ssh_user: '',
  ssh_port: '',
};

const slug = /^[a-z0-9][a-z0-9-]*$/;
const hostName = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

function wholeNumber(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

/** host:port or [v6]:port, the port 1 to 65535; an IPv6 address without brackets is refused (its colons are ambiguous). */
export function isEndpoint(text: string): boolean {
  const bracketed = /^\[([0-9A-Fa-f:.]+)\]:(\d+)$/.exec(text);
  const plain = /^([^:[\]]+):(\d+)$/.exec(text);
  const match = bracketed ?? plain;
  if (!match) return false;
  const [, host = '', port = ''] = match;
  if (wholeNumber(port, 1, 65535) === null) return false;
  return bracketed ? host.includes(':') : hostName.test(host);
}

/** 'gaming, Low-Latency' → ['gaming', 'low-latency']: trimmed, lower case, empty entries and repeats dropped. */
export function parseTags(text: string): string[] {
  const tags = text
    .split(',')
    .map((tag) => tag.trim().toLowerCase())
    .filter((tag) => tag !== '');
  return [...new Set(tags)];
}

/** The body to send, or what is wrong with each field. */
export function checkAddServer(draft: AddServerDraft): { body: AddServerBody | null; errors: AddServerErrors } {
  const errors: AddServerErrors = {};
  const name = draft.name.trim();
  if (name === '') errors.name = 'Enter a name.';
  else if (name.length > 40) errors.name = 'Use at most 40 characters.';
  else if (!slug.test(name))
    errors.name = 'Use lowercase letters, digits and dashes, starting with a letter or digit (like fra-2).';

  const region = draft.region;
  if (!isRegionId(region)) errors.region = 'Choose a region.';

  const city = draft.city.trim();
  if (city === '') errors.city = 'Enter the city.';
  else if (city.length > 80) errors.city = 'Use at most 80 characters.';

  const endpoint = draft.endpoint.trim();
  if (endpoint === '') errors.endpoint = 'Enter the public endpoint devices connect to.';
  else if (endpoint.length > 255 || !isEndpoint(endpoint))
    errors.endpoint = 'Write it as host:port, like 203.0.113.20:51820 or vpn.example.com:51820.';

  const tags = parseTags(draft.tags);
  const badTag = tags.find((tag) => !slug.test(tag) || tag.length > 32);
  if (badTag !== undefined)
    errors.tags = `“${badTag}” is not a tag: use lowercase letters, digits and dashes, at most 32 characters each.`;
  else if (tags.length > 16) errors.tags = 'Use at most 16 tags.';

  const capacity = wholeNumber(draft.capacity.trim(), 1, 1_000_000);
  if (capacity === null) errors.capacity = 'Enter a whole number of peers from 1 to 1,000,000.';

  const sshUser = draft.ssh_user.trim();
  if (sshUser.length > 64 || /\s/.test(sshUser)) errors.ssh_user = 'Use one word of at most 64 characters.';

  const sshPortText = draft.ssh_port.trim();
  const sshPort = sshPortText === '' ? null : wholeNumber(sshPortText, 1, 65535);
  if (sshPortText !== '' && sshPort === null) errors.ssh_port = 'Enter a port from 1 to 65535, or leave it empty.';

  if (Object.keys(errors).length > 0 || !isRegionId(region) || capacity === null) return { body: null, errors };
  return {
    body: {
      name,
      region,
      city,
      endpoint,
      tags,
      capacity,
      ...(sshUser ? { ssh_user: sshUser } : {}),
      ...(sshPort !== null ? { ssh_port: sshPort } : {}),
    },
    errors,
  };
}

function isField(value: unknown): value is AddServerField {
  return typeof value === 'string' && (addServerFields as readonly string[]).includes(value);
}

/**
 * The field a refusal is about: the `field` its details name, else the body field its message starts
 * with (the gateway's schema check writes 'body.name must match …'); null when it names none.
 */
export function fieldOfRefusal(refusal: { details?: Record<string, unknown>; message: string }): AddServerField | null {
  const named = refusal.details?.field;
  if (isField(named)) return named;
  const fromMessage = /^body\.([a-z_]+)/.exec(refusal.message)?.[1];
  return isField(fromMessage) ? fromMessage : null;
}
