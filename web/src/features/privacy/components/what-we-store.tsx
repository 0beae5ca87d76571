import {
  dataInventory,
  type InventoryLogField,
  type InventoryStream,
  type InventoryTable,
  type SensitiveKind,
} from '@qw/contracts';
import { Table, type TableColumn } from '../../../ui';

const serviceNames: Record<InventoryTable['service'], string> = {
  identity: 'Accounts (identity)',
  billing: 'Billing',
  provisioning: 'Devices and servers (provisioning)',
  telemetry: 'Connection status (telemetry)',
  analytics: 'Business figures (analytics)',
  every: 'In every service',
};

const kindNames: Record<SensitiveKind, string> = {
  email: 'e-mail address',
  client_ip: 'your IP address',
  masked_client_network: 'your network, cut to /24 or /48',
  tunnel_address: 'tunnel address we assigned',
  private_key: 'private key',
  token: 'token',
  password: 'password',
};

function personalData(columns: InventoryTable['personal']) {
  if (columns.length === 0) return <span className="qw-muted">None</span>;
  return (
    <ul className="privacy-list">
      {columns.map((column) => (
        <li key={column.column}>
          <code>{column.column}</code>: {column.holds}
          {column.kinds?.length ? ` (${column.kinds.map((kind) => kindNames[kind]).join(', ')})` : ''}
        </li>
      ))}
    </ul>
  );
}

const tableColumns: TableColumn<InventoryTable>[] = [
  { key: 'table', header: 'Table', cell: (t) => <code>{t.table}</code>, rowHeader: true },
  { key: 'purpose', header: 'What it is for', cell: (t) => t.purpose },
  { key: 'personal', header: 'Personal data', cell: (t) => personalData(t.personal) },
  { key: 'retention', header: 'How long', cell: (t) => t.retention },
];

const logColumns: TableColumn<InventoryLogField>[] = [
  { key: 'field', header: 'Field', cell: (f) => <code>{f.field}</code>, rowHeader: true },
  { key: 'holds', header: 'What it holds', cell: (f) => f.holds },
];

const streamColumns: TableColumn<InventoryStream>[] = [
  { key: 'stream', header: 'Stream', cell: (s) => <code>{s.stream}</code>, rowHeader: true },
  {
    key: 'personal',
    header: 'Personal data',
    cell: (s) =>
      s.personal.length === 0 ? (
        <span className="qw-muted">None</span>
      ) : (
        <ul className="privacy-list">
          {s.personal.map((field) => (
            <li key={`${field.subjects} ${field.field}`}>{field.holds}</li>
          ))}
        </ul>
      ),
  },
  { key: 'retention', header: 'How long', cell: (s) => s.retention },
];

const services = [...new Set(dataInventory.tables.map((table) => table.service))];

/**
 * "What we store" (issue #15): every table, log field and event stream, rendered from the one
 * declaration in libs/contracts that the privacy audit test checks the running service against.
 */
export function WhatWeStore() {
  return (
    <div className="qw-stack qw-stack--lg">
      <section className="qw-stack" aria-labelledby="privacy-summary">
        <h2 id="privacy-summary">In short</h2>
        <ul className="privacy-list">
          <li>We never log or store the sites you visit or the traffic through your tunnel.</li>
          <li>{dataInventory.resolver}</li>
          <li>
            We never store your IP address. Rate limits count a keyed hash of it; our servers cut the address a device
            connects from to its /24 (IPv4) or /48 (IPv6) before it leaves them.
          </li>
          <li>
            We keep your e-mail address for your account and billing, your devices’ names and keys, and counters of
            traffic. Passwords, session tokens and link tokens are kept only as hashes.
          </li>
          <li>
            You can download all of it as JSON from your Account page (Your data), and delete your account there: your
            plan is cancelled, your devices leave our servers, your sessions end, and your e-mail address, name and
            devices are erased from every table. Receipts of past payments stay, without them, as tax law requires.
            Events already sent between our services age out with their stream (7 days at most for any that name a
            device).
          </li>
          <li>
            A test runs the whole journey (sign-up, purchase, a device, its configuration, a real connection) and then
            searches every log line, every table and every stored event for e-mail addresses, IP addresses, private keys
            and tokens. Anything it finds that is not listed on this page fails the test. It then deletes the account
            and finds the person's address, name, device names, keys and tunnel addresses in no table.
          </li>
        </ul>
      </section>

      <section className="qw-stack" aria-labelledby="privacy-tables">
        <h2 id="privacy-tables">Tables</h2>
        {services.map((service) => (
          <Table
            key={service}
            caption={serviceNames[service]}
            columns={tableColumns}
            rows={dataInventory.tables.filter((table) => table.service === service)}
            rowKey={(table) => `${table.service}.${table.table}`}
          />
        ))}
      </section>

      <section className="qw-stack" aria-labelledby="privacy-logs">
        <h2 id="privacy-logs">Log lines</h2>
        <p>{dataInventory.logRetention} A log line may carry only these fields:</p>
        <Table
          caption="Log fields"
          columns={logColumns}
          rows={dataInventory.logFields}
          rowKey={(field) => field.field}
        />
      </section>

      <section className="qw-stack" aria-labelledby="privacy-streams">
        <h2 id="privacy-streams">Events between our services</h2>
        <Table
          caption="Event streams"
          columns={streamColumns}
          rows={dataInventory.streams}
          rowKey={(stream) => stream.stream}
        />
        <p className="qw-muted">
          Not your address, and so not personal data: {dataInventory.notClientAddresses.join('; ')}.
        </p>
      </section>
    </div>
  );
}
