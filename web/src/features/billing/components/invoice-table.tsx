import type { BillingOverview } from '@qw/contracts';
import { Link, useLocation } from 'react-router-dom';
import { formatAmount, formatPeriod } from '../../../lib/format';
import { Table, type TableColumn } from '../../../ui';
import { StatusBadge } from './subscription-status';

type Invoice = BillingOverview['invoices'][number];

/**
 * Spec §2: Period (start – end), Amount (USD), Status; in the server's order, period_start descending.
 * Issue #15 adds Receipt: the invoice's number, linking to its printable receipt; issue #26
 * Description: what the charge is for (a first month, a renewal, a prorated upgrade).
 */
const columns: readonly TableColumn<Invoice>[] = [
  {
    key: 'period',
    header: 'Period',
    cell: (invoice) => formatPeriod(invoice.period_start, invoice.period_end),
    rowHeader: true,
  },
  { key: 'description', header: 'Description', cell: (invoice) => invoice.description ?? '—' },
  {
    key: 'amount',
    header: 'Amount',
    type: 'number',
    cell: (invoice) => formatAmount(invoice.amount_cents, invoice.currency),
  },
  { key: 'status', header: 'Status', cell: (invoice) => <StatusBadge status={invoice.status} /> },
  { key: 'receipt', header: 'Receipt', cell: (invoice) => <ReceiptLink invoice={invoice} /> },
];

/** The printable receipt of an invoice (/billing/invoices/:id), coming back to this page. */
function ReceiptLink({ invoice }: { invoice: Invoice }) {
  const location = useLocation();
  const label = invoice.number ?? 'Receipt';
  return (
    <Link
      to={`/billing/invoices/${invoice.id}?return=${encodeURIComponent(location.pathname)}`}
      aria-label={`Receipt ${label}`}
    >
      {label}
    </Link>
  );
}

export function InvoiceTable({ invoices, loading }: { invoices: readonly Invoice[] | undefined; loading: boolean }) {
  return (
    <Table
      caption="Invoices"
      columns={columns}
      rows={invoices}
      rowKey={(invoice) => invoice.id}
      loading={loading}
      emptyText="No invoices yet."
    />
  );
}
