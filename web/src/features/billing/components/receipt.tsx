import { receiptSeller, type Receipt } from '@qw/contracts';
import { failureMessage } from '../../../lib/api-client';
import { formatAmount, formatDate, formatPeriod } from '../../../lib/format';
import { supportEmail } from '../../../config/site';
import { Alert, Button, ButtonLink, Card, Skeleton } from '../../../ui';
import { useReceipt } from '../api/get-receipt';
import './receipt.css';

/**
 * A printable receipt (issue #15): the seller, the buyer's address, the number and date, the plan
 * and its period, what the charge is for (issue #26: an upgrade names both plans and the days it
 * is prorated for), the amount in USD, the card, and any refund. Print keeps only this card.
 */
export function ReceiptView({ invoiceId, backPath }: { invoiceId: string; backPath: string | null }) {
  const receipt = useReceipt(invoiceId);
  // Opened from a mail: back to the Billing page the invoice belongs to.
  const back = backPath ?? (receipt.data?.org_id ? '/app/business/billing' : '/app/personal/billing');
  return (
    <Card className="focus-card focus-card--wide receipt" data-testid="receipt">
      {receipt.isPending && <Skeleton height={240} />}
      {receipt.isError && (
        <Alert tone="error">
          {failureMessage(receipt.error, 'We couldn’t load this receipt. Please reload the page.', { network: false })}
        </Alert>
      )}
      {receipt.data && <ReceiptBody receipt={receipt.data} />}
      <div className="receipt__actions qw-no-print">
        {receipt.data && <Button onClick={() => window.print()}>Print or save as PDF</Button>}
        <ButtonLink to={back} variant="secondary">
          Back to Billing
        </ButtonLink>
      </div>
    </Card>
  );
}

/** The buyer's billing details (issue #26), each only when set. */
function billingDetailRows(details: Receipt['billing_details']): Array<[string, string]> {
  if (!details) return [];
  const rows: Array<[string, string]> = [
    ['Company', details.company_name],
    ['Address', details.address],
    ['VAT ID', details.vat_id],
  ];
  return rows.filter(([, value]) => value !== '');
}

function ReceiptBody({ receipt }: { receipt: Receipt }) {
  const refunded = receipt.refunds.filter((refund) => refund.status === 'issued');
  const rows: Array<[string, string]> = [
    ['Receipt number', receipt.number],
    ['Date', formatDate(receipt.issued_at)],
    ['Billed to', receipt.buyer_email ?? '—'],
    ...billingDetailRows(receipt.billing_details),
    ['Plan', `Quietwire ${receipt.plan_name}`],
    ['Period', formatPeriod(receipt.period_start, receipt.period_end)],
    ['Status', receipt.status],
    ['Paid with', receipt.card ?? '—'],
  ];
  return (
    <div className="qw-stack qw-stack--md">
      <header className="receipt__header">
        <div>
          <p className="receipt__seller">{receiptSeller.name}</p>
          <p className="qw-small qw-muted">
            {receiptSeller.description} · {supportEmail}
          </p>
        </div>
        <h1 className="receipt__title">Receipt</h1>
      </header>
      <dl className="receipt__facts">
        {rows.map(([term, value]) => (
          <div key={term} className="receipt__fact">
            <dt>{term}</dt>
            <dd data-testid={`receipt-${term.toLowerCase().replace(/\s+/g, '-')}`}>{value}</dd>
          </div>
        ))}
      </dl>
      <table className="receipt__lines">
        <caption className="qw-visually-hidden">Amounts</caption>
        <tbody>
          <tr>
            <th scope="row" data-testid="receipt-line">
              {receipt.description}
            </th>
            <td>{formatAmount(receipt.amount_cents, receipt.currency)}</td>
          </tr>
          {refunded.map((refund) => (
            <tr key={refund.id} data-testid="receipt-refund">
              <th scope="row">Refunded on {formatDate(refund.issued_at)}</th>
              <td>−{formatAmount(refund.amount_cents, receipt.currency)}</td>
            </tr>
          ))}
          <tr className="receipt__total">
            <th scope="row">{receipt.paid_at ? 'Total paid (USD)' : 'Total due (USD)'}</th>
            <td data-testid="receipt-total">
              {formatAmount(
                receipt.amount_cents - refunded.reduce((sum, refund) => sum + refund.amount_cents, 0),
                receipt.currency,
              )}
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
