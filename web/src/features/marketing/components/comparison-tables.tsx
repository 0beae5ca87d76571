import { findPlan, formatUsd, planDisplayName, unlimitedDevicesText } from '@qw/contracts';
import { Table, type TableColumn } from '../../../ui';
import {
  competitors,
  featureComparison,
  priceRanges,
  type FeatureComparisonRow,
  type PriceRange,
} from '../data/competitors';
import './marketing.css';

const featureColumns: readonly TableColumn<FeatureComparisonRow>[] = [
  { key: 'feature', header: 'Feature', rowHeader: true, cell: (row) => row.feature },
  { key: 'quietwire', header: 'Quietwire', cell: (row) => row.quietwire, className: 'qw-table__highlight' },
  ...competitors.map(
    (competitor): TableColumn<FeatureComparisonRow> => ({
      key: competitor.id,
      header: competitor.name,
      cell: (row) => row.competitors[competitor.id],
    }),
  ),
];

/** Feature by feature: Quietwire against the six providers. */
export function FeatureComparisonTable({
  caption = 'Features compared with other VPN providers',
}: {
  caption?: string;
}) {
  return (
    <Table
      className="mk-compare-table"
      caption={caption}
      columns={featureColumns}
      rows={featureComparison}
      rowKey={(row) => row.feature}
    />
  );
}

type ProviderRow = {
  id: string;
  name: string;
  priceCents: number;
  devices: string;
  logsPolicy: string;
  gamingNote: string;
  own: boolean;
};

const providerRows: readonly ProviderRow[] = [
  {
    id: 'quietwire',
    name: 'Quietwire Personal',
    priceCents: findPlan('personal')?.priceCents ?? 0,
    devices: unlimitedDevicesText,
    logsPolicy: 'Strict no-logs',
    gamingNote: `Gaming plan (${formatUsd(findPlan('gaming')?.priceCents ?? 0)}/month): low-latency routes, typically 10-30% lower ping`,
    own: true,
  },
  ...competitors.map((competitor) => ({
    id: competitor.id,
    name: competitor.name,
    priceCents: competitor.priceMonthlyCents,
    devices: competitor.devices,
    logsPolicy: competitor.logsPolicy,
    gamingNote: competitor.gamingNote,
    own: false,
  })),
];

const providerColumns: readonly TableColumn<ProviderRow>[] = [
  {
    key: 'name',
    header: 'Provider',
    rowHeader: true,
    cell: (row) => (row.own ? <strong>{row.name}</strong> : row.name),
    sortValue: (row) => row.name,
  },
  {
    key: 'price',
    header: 'Price per month',
    type: 'number',
    cell: (row) => formatUsd(row.priceCents),
    sortValue: (row) => row.priceCents,
  },
  { key: 'devices', header: 'Devices', cell: (row) => row.devices },
  { key: 'logs', header: 'Logs policy', cell: (row) => row.logsPolicy },
  { key: 'gaming', header: 'Gaming', cell: (row) => row.gamingNote },
];

/** Price, devices, logs and gaming per provider; sortable by name and price. */
export function ProviderComparisonTable({ caption = 'VPN providers compared' }: { caption?: string }) {
  return <Table caption={caption} columns={providerColumns} rows={providerRows} rowKey={(row) => row.id} />;
}

const rangeColumns: readonly TableColumn<PriceRange>[] = [
  { key: 'plan', header: 'Plan', rowHeader: true, cell: (row) => planDisplayName(row.planCode) },
  {
    key: 'quietwire',
    header: 'Quietwire',
    type: 'number',
    cell: (row) => formatUsd(findPlan(row.planCode)?.priceCents ?? 0),
    className: 'qw-table__highlight',
  },
  { key: 'range', header: 'Elsewhere', type: 'number', cell: (row) => row.range },
];

/** Spec §9: what comparable plans cost elsewhere, next to Quietwire's price. */
export function PriceRangeTable({
  caption = 'Monthly prices: Quietwire and comparable plans elsewhere',
}: {
  caption?: string;
}) {
  return <Table caption={caption} columns={rangeColumns} rows={priceRanges} rowKey={(row) => row.planCode} />;
}
