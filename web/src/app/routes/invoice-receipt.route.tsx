import { useParams, useSearchParams } from 'react-router-dom';
import { ReceiptView } from '../../features/billing/components/receipt';
import { safeReturnPath } from '../../lib/redirects';
import { PageTitle } from '../../ui';

/** /billing/invoices/:id[?return=<path>]: a printable receipt (the mail's link; the Billing table's Receipt column). */
export default function InvoiceReceiptRoute() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  return (
    <>
      <PageTitle title="Receipt" description="Your Quietwire receipt." />
      <ReceiptView
        invoiceId={id}
        backPath={params.get('return') ? safeReturnPath(params.get('return'), '/app') : null}
      />
    </>
  );
}
