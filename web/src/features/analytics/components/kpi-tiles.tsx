import { arpuWindows, cancelWindows, newSubscriptionWindows, revenueWindows, windowLabel } from '@qw/contracts';
import type { UseQueryResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Skeleton, StatTile, QueryFailure } from '../../../ui';
import { useArpu } from '../api/get-arpu';
import { useCancelsWindow } from '../api/get-cancels-window';
import { useMrrTotals } from '../api/get-mrr';
import { useNewSubscriptionsWindow } from '../api/get-new-subscriptions-window';
import { useRevenueWindow } from '../api/get-revenue-window';
import { analyticsFailureText, formatCents, formatCount } from '../format';
import { WindowPicker } from './window-picker';

/** Every tile opens on 30 days, a window each of Revenue, New subscriptions, Cancels and ARPU offers. */
const defaultWindow = 30;

/**
 * The figures of spec §7 as tiles: Revenue (gross, with refunds and net beneath), New
 * subscriptions, Cancels, MRR, ARR and ARPU, each with the windows spec §9 gives it.
 */
export function KpiTiles() {
  const [revenueDays, setRevenueDays] = useState(defaultWindow);
  const [newDays, setNewDays] = useState(defaultWindow);
  const [cancelDays, setCancelDays] = useState(defaultWindow);
  const arpuDays = arpuWindows[0];
  const revenue = useRevenueWindow(revenueDays);
  const created = useNewSubscriptionsWindow(newDays);
  const cancels = useCancelsWindow(cancelDays);
  const mrr = useMrrTotals();
  const arpu = useArpu(arpuDays);

  return (
    <div className="analytics-tiles">
      <StatTile
        label="Revenue"
        control={
          <WindowPicker label="Revenue window" windows={revenueWindows} value={revenueDays} onChange={setRevenueDays} />
        }
        busy={revenue.isFetching}
        value={figure(revenue, (data) => formatCents(data.amount_cents))}
        hint={
          revenue.data && !revenue.isError ? (
            <>
              <span className="analytics-tile__line">Refunds {formatCents(revenue.data.refunded_cents)}</span>
              <span className="analytics-tile__line">Net {formatCents(revenue.data.net_cents)}</span>
            </>
          ) : (
            failure(revenue)
          )
        }
      />
      <StatTile
        label="New subscriptions"
        control={
          <WindowPicker
            label="New subscriptions window"
            windows={newSubscriptionWindows}
            value={newDays}
            onChange={setNewDays}
          />
        }
        busy={created.isFetching}
        value={figure(created, (data) => formatCount(data.count))}
        hint={failure(created) ?? period(created.data)}
      />
      <StatTile
        label="Cancels"
        control={
          <WindowPicker label="Cancels window" windows={cancelWindows} value={cancelDays} onChange={setCancelDays} />
        }
        busy={cancels.isFetching}
        value={figure(cancels, (data) => formatCount(data.count))}
        hint={failure(cancels) ?? period(cancels.data)}
      />
      <StatTile
        label="MRR"
        control={<span className="analytics-window-fixed qw-small qw-muted">{nowWindowText}</span>}
        busy={mrr.isFetching}
        value={figure(mrr, (data) => formatCents(data.mrr_total_cents))}
        hint={failure(mrr) ?? (mrr.data && `${formatCount(mrr.data.paying_customers)} paying customers`)}
      />
      <StatTile
        label="ARR"
        control={<span className="analytics-window-fixed qw-small qw-muted">{nowWindowText}</span>}
        busy={mrr.isFetching}
        value={figure(mrr, (data) => formatCents(data.arr_total_cents))}
        hint={failure(mrr) ?? (mrr.data && 'Annual run rate')}
      />
      <StatTile
        label="ARPU"
        control={<span className="analytics-window-fixed qw-small qw-muted">{windowLabel(arpuDays)}</span>}
        busy={arpu.isFetching}
        value={figure(arpu, (data) => (data.arpu_cents === null ? '—' : formatCents(data.arpu_cents)))}
        hint={
          failure(arpu) ??
          (arpu.data &&
            (arpu.data.arpu_cents === null
              ? 'No paying customers in this window.'
              : `Net ${formatCents(arpu.data.net_cents)} over ${formatCount(arpu.data.paying_customers)} paying customers`))
        }
      />
    </div>
  );
}

/** Issue #26: every tile names its window; MRR and ARR are the subscriptions running now. */
export const nowWindowText = 'Now';

/** The tile's value: a placeholder bar while the first answer is on its way, '—' when it failed. */
function figure<T>(query: UseQueryResult<T>, show: (data: T) => ReactNode): ReactNode {
  if (query.data !== undefined && !query.isError) return show(query.data);
  if (query.isPending) return <Skeleton height={34} />;
  return '—';
}

function failure<T>(query: UseQueryResult<T>): ReactNode {
  if (!query.isError) return undefined;
  return (
    <QueryFailure
      compact
      message={analyticsFailureText(query.error)}
      onRetry={() => void query.refetch()}
      retrying={query.isFetching}
    />
  );
}

/** The window's days, each date kept whole on narrow tiles. */
function period(data: { from: string; to: string } | undefined): ReactNode {
  if (!data) return undefined;
  return (
    <>
      <span className="analytics-nowrap">{data.from}</span> to <span className="analytics-nowrap">{data.to}</span>
    </>
  );
}
