import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import {
  Alert,
  Badge,
  Button,
  Card,
  Chart,
  Field,
  Input,
  Modal,
  PageTitle,
  Select,
  StatTile,
  Table,
  Tabs,
  TextArea,
  useToast,
  type TableColumn,
} from '../../ui';

/**
 * Every design-system component in one unlisted page (/design-system), for the engineers building
 * the console and for the browser tests of Modal, Toast, Table, Tabs and Chart. Not linked anywhere.
 */
export default function DesignSystemRoute() {
  const tab = useParams()['*'] ?? '';
  return (
    <main id="main" className="qw-container qw-page">
      <PageTitle title="Design system" description="Quietwire's interface components." />
      <header className="qw-page-head">
        <h1>Design system</h1>
        <p className="qw-muted">
          Components from <code>web/src/ui</code>. <Link to="/">Back to Quietwire</Link>
        </p>
      </header>
      <Tabs
        label="Design system"
        items={[
          { to: '/design-system', label: 'Components', end: true },
          { to: '/design-system/tables', label: 'Tables' },
          { to: '/design-system/chart', label: 'Chart' },
        ]}
      />
      {tab === 'tables' ? <TablesDemo /> : tab === 'chart' ? <ChartDemo /> : <ComponentsDemo />}
    </main>
  );
}

function ComponentsDemo() {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="qw-stack qw-stack--lg">
      <Card as="section" aria-labelledby="ds-buttons">
        <h2 id="ds-buttons">Buttons</h2>
        <div className="qw-cluster">
          <Button onClick={() => toast('Saved')}>Save</Button>
          <Button variant="secondary" onClick={() => setBusy((value) => !value)}>
            Toggle busy
          </Button>
          <Button busy={busy} busyText="Redirecting…">
            Get Gaming
          </Button>
          <Button variant="danger" onClick={() => setConfirming(true)}>
            Remove device
          </Button>
        </div>
      </Card>
      <Modal
        open={confirming}
        title="Remove this device?"
        confirmLabel="Remove"
        confirmVariant="danger"
        onConfirm={() => {
          setConfirming(false);
          toast('Device removed');
        }}
        onCancel={() => setConfirming(false)}
      >
        <p>The device loses access at once. Its configuration file stops working.</p>
      </Modal>
      <Card as="section" aria-labelledby="ds-badges">
        <h2 id="ds-badges">Badges</h2>
        <div className="qw-cluster">
          <Badge>Most Popular</Badge>
          <Badge>Best for Teams</Badge>
          <Badge tone="success">Active</Badge>
          <Badge tone="warning">Suspended</Badge>
          <Badge tone="success" dot>
            Online
          </Badge>
          <Badge tone="neutral" dot>
            Idle
          </Badge>
        </div>
      </Card>
      <section className="qw-stack" aria-labelledby="ds-alerts">
        <h2 id="ds-alerts">Alerts</h2>
        <Alert tone="info" announce={false}>
          Plan status and devices will appear here.
        </Alert>
        <Alert tone="success" announce={false}>
          Saved
        </Alert>
        <Alert tone="warning" announce={false}>
          This organization is suspended.
        </Alert>
        <Alert tone="error" announce={false} title="Action failed">
          Try again in a moment.
        </Alert>
      </section>
      <section className="qw-grid" aria-label="Stat tiles">
        <StatTile label="Devices" value={3} />
        <StatTile label="Connected" value={1} />
        <StatTile label="VPN Status" value="Online" hint="1 device connected" />
      </section>
      <Card as="section" aria-labelledby="ds-form">
        <h2 id="ds-form">Form</h2>
        <Field label="Device name" error="Please enter a device name.">
          <Input placeholder="Laptop" />
        </Field>
        <Field label="Platform">
          <Select
            defaultValue="linux"
            options={[
              { value: 'linux', label: 'Linux' },
              { value: 'ios', label: 'iOS' },
            ]}
          />
        </Field>
        <Field label="Notes" hint="Optional.">
          <TextArea rows={3} />
        </Field>
        <p>
          Public key: <code>q3Hd0Z3y6rV5bQv0m2b3cX1n9s8J4kL7tE2wY6uP1A=</code>
        </p>
      </Card>
    </div>
  );
}

type DemoDevice = { id: string; name: string; platform: string; rxMb: number };
const demoDevices: DemoDevice[] = [
  { id: '1', name: 'Laptop', platform: 'Linux', rxMb: 1520.5 },
  { id: '2', name: 'Phone', platform: 'iOS', rxMb: 88.25 },
  { id: '3', name: 'Router', platform: 'Router', rxMb: 40210 },
];
const deviceColumns: TableColumn<DemoDevice>[] = [
  { key: 'name', header: 'Name', rowHeader: true, cell: (row) => row.name, sortValue: (row) => row.name },
  { key: 'platform', header: 'Platform', cell: (row) => row.platform, sortValue: (row) => row.platform },
  {
    key: 'rx',
    header: 'Received (MB)',
    type: 'number',
    cell: (row) => row.rxMb.toFixed(2),
    sortValue: (row) => row.rxMb,
  },
];

function TablesDemo() {
  return (
    <div className="qw-stack qw-stack--lg">
      <Table caption="Devices" columns={deviceColumns} rows={demoDevices} rowKey={(row) => row.id} />
      <Table
        caption="No devices"
        columns={deviceColumns}
        rows={[]}
        rowKey={(row) => row.id}
        emptyText="No devices yet. Add one above."
      />
      <Table caption="Loading devices" columns={deviceColumns} rows={undefined} rowKey={(row) => row.id} loading />
    </div>
  );
}

function ChartDemo() {
  const hours = Array.from({ length: 24 }, (_, hour) => `${String(hour).padStart(2, '0')}:00`);
  return (
    <Card>
      <Chart
        label="Traffic in the last 24 hours, in MB per hour"
        option={{
          tooltip: { trigger: 'axis' },
          legend: {},
          xAxis: { type: 'category', data: hours, name: 'Hour' },
          yAxis: { type: 'value', name: 'MB' },
          series: [
            { name: 'Received', type: 'line', data: hours.map((_, i) => 200 + 150 * Math.sin(i / 3)) },
            { name: 'Sent', type: 'line', data: hours.map((_, i) => 80 + 40 * Math.cos(i / 4)) },
          ],
        }}
      />
    </Card>
  );
}
