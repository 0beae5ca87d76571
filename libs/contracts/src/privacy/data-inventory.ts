/**
 * What Quietwire keeps, declared once: every table of every service (its purpose, the columns
 * that hold personal data or secrets, how long rows stay), every field a log line may carry, and
 * every stream with the personal data its events carry. The public page "What we store" is
 * rendered from this, and the privacy audit test checks the running system against it: any
 * e-mail, client address, private key or token found where this does not declare it fails.
 */

/** What the audit looks for. */
export const sensitiveKinds = [
  'email',
  'client_ip',
  'masked_client_network',
  'tunnel_address',
  'private_key',
  'token',
  'password',
] as const;
export type SensitiveKind = (typeof sensitiveKinds)[number];

export type InventoryService = 'identity' | 'billing' | 'provisioning' | 'telemetry' | 'analytics';

export type InventoryColumn = {
  column: string;
  /** In words, for the page. */
  holds: string;
  /** What the audit may find in it. */
  kinds?: readonly SensitiveKind[];
};

export type InventoryTable = {
  /** `every`: a table of the platform that every service schema has. */
  service: InventoryService | 'every';
  table: string;
  purpose: string;
  /** Columns with personal data (an e-mail, a name, an address, a key); the rest hold none. */
  personal: readonly InventoryColumn[];
  retention: string;
};

export type InventoryLogField = { field: string; holds: string; kinds?: readonly SensitiveKind[] };

export type InventoryStreamField = { subjects: string; field: string; holds: string; kinds?: readonly SensitiveKind[] };

export type InventoryStream = {
  stream: string;
  retention: string;
  personal: readonly InventoryStreamField[];
};

const whileAccount = 'Kept while the account exists; deleting the account deletes it.';
const taxRecords = 'Kept (tax and accounting records); deleting the account erases the address in it.';
const asLongAsDevice = 'Kept while the device exists; removing the device deletes it.';

/** Every table of every service schema (`every` for the platform's own tables, in each schema). */
export const inventoryTables: readonly InventoryTable[] = [
  // The platform's tables, in every service's schema.
  {
    service: 'every',
    table: 'outbox',
    purpose: 'Events waiting to be published (written in the same transaction as the change).',
    personal: [
      { column: 'envelope', holds: 'the event; the same data as its stream (below)', kinds: ['tunnel_address'] },
    ],
    retention:
      'Kept 5 minutes after the event is published (OUTBOX_RETENTION_MS), to publish it again if a restart of every NATS server lost it; then deleted.',
  },
  {
    service: 'every',
    table: 'inbox',
    purpose: 'Ids of events already handled, so a redelivered event has no second effect.',
    personal: [],
    retention: 'Kept 7 days.',
  },
  {
    service: 'every',
    table: 'rate_events',
    purpose: 'Rate limits (sign-in attempts, sign-ups, device additions).',
    personal: [
      {
        column: 'key',
        holds: 'an account id, or a keyed hash (HMAC) of the client address or e-mail; never the address itself',
      },
    ],
    retention: 'Kept 1 day.',
  },
  {
    service: 'every',
    table: 'mail_jobs',
    purpose:
      "Mail to send, with retries. A job names what to send about (a device id; for billing's receipts and notices the payment's facts and the person's id), never the mail itself nor the address.",
    personal: [],
    retention: 'Kept 7 days after it was sent or given up.',
  },
  {
    service: 'every',
    table: 'task_leases',
    purpose: 'Which replica runs each periodic task now, and until when its lease lasts.',
    personal: [],
    retention: 'One row per task, kept.',
  },
  {
    service: 'every',
    table: 'task_runs',
    purpose: 'Each period a periodic task was run in, by which replica, and how it ended (so no period runs twice).',
    personal: [],
    retention: 'Kept 7 days (task-runs-prune).',
  },
  {
    service: 'every',
    table: 'kysely_migration',
    purpose: 'Which schema migrations ran.',
    personal: [],
    retention: 'Kept.',
  },
  {
    service: 'every',
    table: 'kysely_migration_lock',
    purpose: 'Lets one process migrate at a time.',
    personal: [],
    retention: 'Kept.',
  },
  // identity
  {
    service: 'identity',
    table: 'users',
    purpose: 'Accounts, and while our support has one suspended, since when and why.',
    personal: [
      { column: 'email', holds: 'your e-mail address', kinds: ['email'] },
      { column: 'password_hash', holds: 'an argon2id hash of your password (never the password)' },
      { column: 'suspension_reason', holds: 'why our support suspended your account, while it is suspended' },
    ],
    retention: whileAccount,
  },
  {
    service: 'identity',
    table: 'profiles',
    purpose: 'Profiles: name, account type, role.',
    personal: [
      { column: 'email', holds: 'your e-mail address', kinds: ['email'] },
      { column: 'full_name', holds: 'your name, if you gave one' },
      { column: 'avatar_url', holds: 'a picture address, if you gave one' },
    ],
    retention: whileAccount,
  },
  {
    service: 'identity',
    table: 'admin_emails',
    purpose: 'The addresses of platform operators.',
    personal: [{ column: 'email', holds: "an operator's e-mail address", kinds: ['email'] }],
    retention: 'Kept while the address is on the operators list.',
  },
  {
    service: 'identity',
    table: 'admin_audit',
    purpose: "What operators did in the console (for the operators' own audit).",
    personal: [
      { column: 'actor_email', holds: "the acting operator's e-mail address", kinds: ['email'] },
      {
        column: 'target',
        holds: 'what was acted on (an id, or an operator address added or removed)',
        kinds: ['email'],
      },
      { column: 'details', holds: 'what changed', kinds: ['email'] },
    ],
    retention: 'Kept.',
  },
  {
    service: 'identity',
    table: 'refresh_tokens',
    purpose: 'Sessions (the refresh token of each sign-in).',
    personal: [{ column: 'token_hash', holds: 'a SHA-256 hash of the token (never the token)' }],
    retention: whileAccount,
  },
  {
    service: 'identity',
    table: 'email_tokens',
    purpose: 'Verification and password-reset links.',
    personal: [{ column: 'token_hash', holds: 'a hash of the link token (never the token)' }],
    retention: whileAccount,
  },
  {
    service: 'identity',
    table: 'mfa_factors',
    purpose: 'Two-factor sign-in.',
    personal: [{ column: 'secret', holds: 'the TOTP secret your authenticator app shares (needed to check codes)' }],
    retention: 'Kept while two-factor sign-in is on.',
  },
  {
    service: 'identity',
    table: 'mfa_recovery_codes',
    purpose: 'Two-factor recovery codes.',
    personal: [{ column: 'code_hash', holds: 'hashes of the codes (never the codes)' }],
    retention: 'Kept while two-factor sign-in is on.',
  },
  {
    service: 'identity',
    table: 'mfa_challenges',
    purpose: 'A sign-in waiting for its second factor.',
    personal: [{ column: 'token_hash', holds: 'a hash of the challenge token' }],
    retention: 'Deleted when answered.',
  },
  {
    service: 'identity',
    table: 'organizations',
    purpose: 'Business organizations.',
    personal: [{ column: 'name', holds: "the organization's name" }],
    retention: 'Kept while the organization exists.',
  },
  {
    service: 'identity',
    table: 'org_members',
    purpose: 'Who belongs to which organization, with their role.',
    personal: [],
    retention: 'Kept while the person is a member.',
  },
  {
    service: 'identity',
    table: 'org_subscriptions',
    purpose: "Organizations' plans, as billing reports them.",
    personal: [],
    retention: 'Kept while the organization exists.',
  },
  {
    service: 'identity',
    table: 'invitations',
    purpose: 'Invitations to an organization.',
    personal: [
      { column: 'email', holds: 'the invited e-mail address', kinds: ['email'] },
      { column: 'token_hash', holds: 'a hash of the link token (never the token)' },
    ],
    retention: 'Kept while the organization exists.',
  },
  {
    service: 'identity',
    table: 'audit_log',
    purpose: "An organization's audit log (members, devices, plan).",
    personal: [
      { column: 'actor_name', holds: "the acting person's name at the time" },
      { column: 'target_name', holds: "a device's or member's name at the time" },
    ],
    retention:
      "Kept while the organization exists; a deleted account's name becomes “A former user” and its devices' names are erased.",
  },
  {
    service: 'identity',
    table: 'billing_notices',
    purpose:
      'Which billing notices were mailed (a plan set to end), so each goes once: a subscription id, a kind, a date.',
    personal: [],
    retention: 'Kept.',
  },
  {
    service: 'identity',
    table: 'contact_messages',
    purpose: 'Messages sent with the contact form (stored, then mailed to support).',
    personal: [
      { column: 'email', holds: "the sender's e-mail address", kinds: ['email'] },
      { column: 'message', holds: 'the message', kinds: ['email'] },
    ],
    retention: 'Kept.',
  },
  // billing
  {
    service: 'billing',
    table: 'customers',
    purpose: 'Paying customers and their payment provider id.',
    personal: [{ column: 'email', holds: "the buyer's e-mail address", kinds: ['email'] }],
    retention: taxRecords,
  },
  {
    service: 'billing',
    table: 'checkout_sessions',
    purpose: 'Purchases, from checkout to the account that claimed them.',
    personal: [{ column: 'email', holds: 'the e-mail address given at checkout', kinds: ['email'] }],
    retention: taxRecords,
  },
  {
    service: 'billing',
    table: 'subscriptions',
    purpose: 'Plans: status, period, price.',
    personal: [
      { column: 'card_brand', holds: 'the brand of the card it renews with (Visa, …)' },
      { column: 'card_last4', holds: 'the last four digits of that card (never the number)' },
    ],
    retention: 'Kept (tax and accounting records); deleting the account erases the card digits.',
  },
  {
    service: 'billing',
    table: 'invoices',
    purpose: 'Payments, each with its receipt number.',
    personal: [
      { column: 'card_brand', holds: 'the brand of the card that paid (Visa, …)' },
      { column: 'card_last4', holds: 'the last four digits of that card (never the number)' },
    ],
    retention: 'Kept (tax and accounting records); deleting the account erases the card digits.',
  },
  {
    service: 'billing',
    table: 'refunds',
    purpose: 'Money-back refunds.',
    personal: [{ column: 'email', holds: "the customer's e-mail address", kinds: ['email'] }],
    retention: taxRecords,
  },
  {
    service: 'billing',
    table: 'webhook_events',
    purpose: "The payment provider's notifications: each recorded once by its id, then applied to the ledger.",
    personal: [
      {
        column: 'payload',
        holds: "the notification until it is applied (it names the buyer's e-mail address)",
        kinds: ['email'],
      },
    ],
    retention:
      'The notification until it is applied (minutes at most, unless applying it keeps failing); its id and type kept.',
  },
  {
    service: 'billing',
    table: 'billing_details',
    purpose: 'Billing details for invoices, shown on every receipt: a person’s own or an organization’s.',
    personal: [
      { column: 'company_name', holds: 'the company name to bill' },
      { column: 'address', holds: 'the billing address' },
      { column: 'vat_id', holds: 'the VAT ID' },
    ],
    retention:
      'A person’s: kept while the account exists; deleting the account deletes them. An organization’s: kept while it exists.',
  },
  {
    service: 'billing',
    table: 'test_clocks',
    purpose: 'Clocks of the local test payment provider (never used with real payments).',
    personal: [],
    retention: 'Kept.',
  },
  // provisioning
  {
    service: 'provisioning',
    table: 'account_suspensions',
    purpose: 'Which accounts our support has suspended, so their devices stay off (no reason, no address).',
    personal: [],
    retention: 'Until the account is deleted.',
  },
  {
    service: 'provisioning',
    table: 'devices',
    purpose:
      'Your devices: name, platform, server, keys, tunnel address, key rotation schedule, content blocking and split tunnel.',
    personal: [
      { column: 'name', holds: 'the name you gave the device' },
      { column: 'blocking_mask', holds: 'which content blocking categories you turned on for the device' },
      {
        column: 'split_tunnel',
        holds: 'what the device sends through the tunnel: everything, all but local networks, or listed routes',
      },
      { column: 'custom_routes', holds: 'the networks you listed for the device to send through the tunnel' },
      { column: 'public_key', holds: "the device's WireGuard public key" },
      {
        column: 'private_key_sealed',
        holds: 'its private key, sealed with AES-256-GCM (none when your browser made the key)',
      },
      {
        column: 'preshared_key_sealed',
        holds:
          'its WireGuard preshared key, sealed with AES-256-GCM like the private key, replaced with each new key (none for a device made before preshared keys, until its next key)',
      },
      { column: 'ipv4', holds: 'the tunnel address we assigned (not your address)', kinds: ['tunnel_address'] },
      { column: 'ipv6', holds: 'the tunnel address we assigned (not your address)', kinds: ['tunnel_address'] },
    ],
    retention: asLongAsDevice,
  },
  {
    service: 'provisioning',
    table: 'retiring_keys',
    purpose: 'A key a scheduled rotation replaced, working 24 hours more.',
    personal: [
      { column: 'public_key', holds: 'the previous public key' },
      { column: 'preshared_key_sealed', holds: 'the preshared key that went with it, sealed with AES-256-GCM' },
      { column: 'ipv4', holds: 'its tunnel address', kinds: ['tunnel_address'] },
      { column: 'ipv6', holds: 'its tunnel address', kinds: ['tunnel_address'] },
    ],
    retention: 'Deleted when the 24 hours end.',
  },
  {
    service: 'provisioning',
    table: 'moved_peers',
    purpose: 'The peer a device left on its old server when it moved, until it connects through the new one.',
    personal: [
      { column: 'public_key', holds: "the device's public key" },
      { column: 'ipv4', holds: 'its old tunnel address', kinds: ['tunnel_address'] },
      { column: 'ipv6', holds: 'its old tunnel address', kinds: ['tunnel_address'] },
    ],
    retention: 'Deleted once the device connects through its new server, or after 7 days.',
  },
  {
    service: 'provisioning',
    table: 'node_enrolments',
    purpose: "One-time tokens for a new server's host (only their hash is kept).",
    personal: [],
    retention: 'Kept with the server.',
  },
  {
    service: 'provisioning',
    table: 'node_credentials',
    purpose: 'Which bus credentials each server was given, so retiring it revokes them.',
    personal: [],
    retention: 'Kept with the server.',
  },
  {
    service: 'provisioning',
    table: 'config_links',
    purpose: 'One-minute links to open a configuration in a new tab.',
    personal: [{ column: 'token_hash', holds: 'a hash of the link token (never the token)' }],
    retention: 'Deleted an hour after the link expired.',
  },
  {
    service: 'provisioning',
    table: 'nodes',
    purpose: 'Our VPN servers.',
    personal: [
      { column: 'ipv4_cidr', holds: "the server's tunnel network", kinds: ['tunnel_address'] },
      { column: 'ipv6_cidr', holds: "the server's tunnel network", kinds: ['tunnel_address'] },
    ],
    retention: 'Kept.',
  },
  {
    service: 'provisioning',
    table: 'entitlements',
    purpose: 'Which plan entitles whom to devices (from billing).',
    personal: [],
    retention: 'Kept.',
  },
  {
    service: 'provisioning',
    table: 'organizations',
    purpose: "Organizations' standing (from identity).",
    personal: [],
    retention: 'Kept.',
  },
  {
    service: 'provisioning',
    table: 'org_members',
    purpose: "Organizations' members and roles (from identity).",
    personal: [],
    retention: 'Kept.',
  },
  {
    service: 'provisioning',
    table: 'org_device_counts',
    purpose: "How many of an organization's devices each person holds (kept as devices come and go).",
    personal: [],
    retention: 'Kept while the person has devices in the organization; the row goes with the last one.',
  },
  {
    service: 'provisioning',
    table: 'operator_actions',
    purpose: "Operators' device and server actions.",
    personal: [{ column: 'details', holds: "the device's name at the time" }],
    retention: 'Kept.',
  },
  {
    service: 'provisioning',
    table: 'test_clock',
    purpose: "The tests' clock for key rotation (never used in production).",
    personal: [],
    retention: 'Kept.',
  },
  // telemetry
  {
    service: 'telemetry',
    table: 'device_keys',
    purpose: 'Which public key belongs to which device.',
    personal: [{ column: 'public_key', holds: "the device's public key" }],
    retention: asLongAsDevice,
  },
  {
    service: 'telemetry',
    table: 'early_handshakes',
    purpose:
      "A device's first handshake a node saw before telemetry had read which device the key belongs to (no address).",
    personal: [{ column: 'public_key', holds: "the device's public key" }],
    retention:
      'Deleted when its key arrives; one that waited two minutes is told to no one and deleted within two more.',
  },
  {
    service: 'telemetry',
    table: 'device_latest_telemetry',
    purpose:
      'The latest sample per device: handshake, bytes, latency (overwritten, no history), and the bytes of its hour under way.',
    personal: [
      {
        column: 'endpoint',
        holds: 'the network you connected from, cut to its /24 (IPv4) or /48 (IPv6) on the server: never your address',
        kinds: ['masked_client_network'],
      },
    ],
    retention: 'One row per device, overwritten by each sample; the hour under way is emptied after 24 hours.',
  },
  {
    service: 'telemetry',
    table: 'device_key_versions',
    purpose:
      "The outbox number of the newest device event applied to each device's key, so a late, older one changes nothing.",
    personal: [],
    retention: 'As long as the device is known; a day after it is removed or its keys are erased.',
  },
  {
    service: 'telemetry',
    table: 'device_activity',
    purpose: 'Whether each device is on or suspended, so the Telemetry page shows a suspended one as not connected.',
    personal: [],
    retention: asLongAsDevice,
  },
  {
    service: 'telemetry',
    table: 'device_traffic_hours',
    purpose:
      "Bytes each device received and sent per hour, for its Devices page's last 24 hours (no address, no destination).",
    personal: [],
    retention: 'Kept 24 hours; removing the device deletes it.',
  },
  {
    service: 'telemetry',
    table: 'telemetry',
    purpose: 'Hourly traffic totals of the whole service (no device, no person).',
    personal: [],
    retention: 'Kept.',
  },
  {
    service: 'telemetry',
    table: 'vps_metrics',
    purpose: "Servers' CPU, memory, disk, load, interface byte counters and peer count (their 24 h history).",
    personal: [],
    retention: 'Kept 1 day.',
  },
  {
    service: 'telemetry',
    table: 'nodes',
    purpose: "Servers' names.",
    personal: [],
    retention: 'Kept.',
  },
  // analytics (each rebuild of the figures makes tables of a new generation: g1_, g2_…)
  {
    service: 'analytics',
    table: 'generations',
    purpose: 'Rebuilds of the business figures.',
    personal: [],
    retention: 'Kept.',
  },
  ...[
    [
      'subscriptions',
      "Subscriptions as the figures count them (the paying account's or organization's id as the customer key; no name, address or e-mail).",
    ],
    [
      'customers',
      "Customers as the figures count them (the paying account's or organization's id; no name, address or e-mail).",
    ],
    ['invoices', 'Payments as the figures count them.'],
    ['customer_months', 'Customers per month.'],
    ['revenue_daily', 'Revenue per day.'],
    ['revenue_monthly_plan', 'Revenue per month and plan.'],
    ['subscriptions_daily', 'Subscriptions per day.'],
    ['mrr_daily', 'Monthly recurring revenue per day.'],
    ['cohort_cells', 'Retention by sign-up month.'],
    ['funnel_daily', 'Sign-ups and purchases per day.'],
    ['web_traffic_daily', 'Page visits per day and page (counts only).'],
    // Issue #26: each customer's share, so test accounts can be left out of the figures when asked.
    ['refunds', 'Refunds as the figures count them (their payment, amount and day).'],
    ['customer_mrr_daily', "Each customer's recurring revenue changes per day (a customer key, no person's details)."],
    ['signups', "Each sign-up's account id and day (no address or name)."],
  ].map(
    ([table, purpose]): InventoryTable => ({
      service: 'analytics',
      table: `g{n}_${table}`,
      purpose: purpose!,
      personal: [],
      retention: 'Kept until the next rebuild replaces it.',
    }),
  ),
];

/** Every top-level field a log line may carry. No log line holds an address, e-mail, key or token. */
export const inventoryLogFields: readonly InventoryLogField[] = [
  // On every line.
  { field: 'level', holds: 'how serious' },
  { field: 'time', holds: 'when' },
  { field: 'name', holds: 'the service' },
  { field: 'service', holds: 'the service' },
  { field: 'msg', holds: 'what happened, in words (any e-mail, address, key or token inside is masked)' },
  // Requests: method, route pattern, status and time only (no query, headers, body or address).
  { field: 'reqId', holds: "a request's id (a counter of the process)" },
  { field: 'method', holds: "a request's method" },
  { field: 'route', holds: "a request's route pattern (not the address it was called with)" },
  { field: 'status', holds: "a response's status, or a rebuild's state" },
  { field: 'ms', holds: 'how long a request (or a peer change on a node) took' },
  { field: 'peers', holds: 'how many peers a change on a node touched (a count, no key or address)' },
  // Events, mail and tasks.
  { field: 'err', holds: 'an error: its type, message and stack (masked the same way)' },
  { field: 'subject', holds: "an event's subject, or a mail's subject line (which may name a device)" },
  { field: 'file', holds: 'where a mail was written (development only, without a mail server)' },
  { field: 'mail', holds: 'which kind of mail failed' },
  { field: 'kind', holds: 'which kind of mail job' },
  { field: 'jobId', holds: "a mail job's id" },
  { field: 'worker', holds: 'which background worker (by name) took or lost its lease on this replica' },
  { field: 'attempt', holds: 'which attempt' },
  { field: 'attempts', holds: 'how many attempts' },
  { field: 'consumer', holds: 'which event consumer' },
  { field: 'stream', holds: 'which stream' },
  { field: 'eventId', holds: "an event's id" },
  { field: 'reason', holds: 'why an event was set aside' },
  { field: 'problems', holds: "which fields of an event's payload were wrong" },
  { field: 'count', holds: 'how many' },
  { field: 'failed', holds: 'how many failed' },
  { field: 'failures', holds: 'how many failures in a row' },
  { field: 'deleted', holds: 'how many rows a clean-up deleted' },
  { field: 'task', holds: 'which periodic task' },
  { field: 'applied', holds: 'which migrations ran' },
  { field: 'nats', holds: 'the state of the bus connection' },
  { field: 'signal', holds: 'the signal that stops a process' },
  { field: 'port', holds: 'the port a process listens on' },
  { field: 'internalPort', holds: 'the port of the internal listener' },
  { field: 'code', holds: 'an error code' },
  // Accounts, billing, devices, figures: ids and counts, never names or addresses.
  { field: 'userId', holds: "an account's id" },
  { field: 'contactId', holds: "a contact message's id" },
  { field: 'subscriptionId', holds: "a subscription's id" },
  { field: 'refundId', holds: "a refund's id" },
  { field: 'to', holds: 'the plan a plan change goes to' },
  { field: 'takesEffect', holds: 'when a plan change takes effect' },
  { field: 'chargedCents', holds: 'what a plan change charged' },
  { field: 'invoices', holds: 'how many invoices' },
  { field: 'issued', holds: 'how many refunds were issued' },
  { field: 'type', holds: "a payment provider notification's type" },
  { field: 'node', holds: "a server's name" },
  { field: 'added', holds: 'how many peers a reconcile added' },
  { field: 'removed', holds: 'how many peers a reconcile removed' },
  { field: 'control', holds: 'how a node agent drives WireGuard: its control socket (uapi) or the wg command' },
  { field: 'rulesAdded', holds: 'how many forwarding/NAT rules the node agent added at start' },
  { field: 'egressInterface', holds: 'the network interface a node NATs its tunnel out of (NODE_EGRESS_INTERFACE)' },
  { field: 'step', holds: 'which setup step failed (sysctl, iptables, ip6tables)' },
  { field: 'fixed', holds: 'how many peers a reconcile fixed' },
  {
    field: 'unbound',
    holds:
      "what a server's resolver said while starting (such as an address it could not listen on), never once it has answered",
    kinds: ['tunnel_address'],
  },
  { field: 'rotated', holds: 'how many scheduled key rotations ran' },
  { field: 'retired', holds: 'how many keys ended their grace period, or figures generations retired' },
  { field: 'generation', holds: 'which rebuild of the figures' },
  { field: 'definition', holds: "which version of the figures' definition" },
];

const historyRetention = 'Kept (no age limit), so figures can be rebuilt; no event carries personal data.';

/** Every stream and the personal data its events carry. */
export const inventoryStreams: readonly InventoryStream[] = [
  { stream: 'IDENTITY', retention: historyRetention, personal: [] },
  { stream: 'BILLING', retention: historyRetention, personal: [] },
  { stream: 'GATEWAY', retention: historyRetention, personal: [] },
  {
    stream: 'PROVISIONING',
    retention: 'Kept 7 days.',
    personal: [
      {
        subjects: 'provisioning.>',
        field: 'data.allowedIps[]',
        holds: "a device's tunnel addresses (not the client's)",
        kinds: ['tunnel_address'],
      },
      { subjects: 'provisioning.device.*', field: 'data.name', holds: "a device's name, when it is added or renamed" },
      { subjects: 'provisioning.>', field: 'data.publicKey', holds: "a device's WireGuard public key" },
    ],
  },
  {
    stream: 'NODE',
    retention: 'Kept 7 days.',
    personal: [
      {
        subjects: 'node.*.peers.sampled',
        field: 'data.peers[].maskedEndpoint',
        holds: 'the network a device connected from, cut to /24 or /48 on the server',
        kinds: ['masked_client_network'],
      },
    ],
  },
  { stream: 'TELEMETRY', retention: 'Kept 7 days.', personal: [] },
  { stream: 'ANALYTICS', retention: 'Kept 7 days.', personal: [] },
  {
    stream: 'DEADLETTER',
    retention: 'Kept 7 days.',
    personal: [],
  },
];

export const dataInventory = {
  tables: inventoryTables,
  logFields: inventoryLogFields,
  logRetention: 'Log lines go to standard output, where the host keeps them 14 days.',
  /** Each server's own resolver (issue #25): what it keeps. */
  resolver:
    'Your devices’ DNS lookups go to a resolver on the server they connect through, inside the tunnel, not to another company’s resolver. That resolver keeps nothing: no lookup is logged or written to disk, and its cache of answers lives only in its memory, each for the time the answer allows, and is gone when it restarts. Content blocking works by the resolver address your configuration names, so the server needs no record of which device blocks what.',
  streams: inventoryStreams,
  /** Addresses that are not a client's, and so not personal data: loopback and our servers' own. */
  notClientAddresses: ['loopback (127.0.0.0/8, ::1)', "our servers' public endpoints"],
};

/** A table as the declaration names it: a generation's analytics table as `g{n}_<name>`. */
export function inventoryTableName(table: string): string {
  return table.replace(/^g\d+_/, 'g{n}_');
}

export function declaredTable(service: string, table: string): InventoryTable | undefined {
  const name = inventoryTableName(table);
  return (
    inventoryTables.find((t) => t.service === service && t.table === name) ??
    inventoryTables.find((t) => t.service === 'every' && t.table === name)
  );
}

/** The declaration of a log field, by its top-level name (`err.message` is `err`). */
export function declaredLogField(field: string): InventoryLogField | undefined {
  const top = field.split(/[.[]/)[0];
  return inventoryLogFields.find((f) => f.field === top);
}

export function declaredLogKinds(field: string): readonly SensitiveKind[] {
  return declaredLogField(field)?.kinds ?? [];
}

/** `subjects` is a subject with `*` for one token and `>` for the rest, as NATS writes them. */
function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return have.length > i;
    if (want[i] !== '*' && want[i] !== have[i]) return false;
  }
  return want.length === have.length;
}

export function declaredStreamKinds(stream: string, subject: string, field: string): readonly SensitiveKind[] {
  const declared = inventoryStreams.find((s) => s.stream === stream);
  return (declared?.personal ?? [])
    .filter((f) => f.field === field && subjectMatches(f.subjects, subject))
    .flatMap((f) => f.kinds ?? []);
}
