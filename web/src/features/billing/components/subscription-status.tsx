import { Badge, type BadgeTone } from '../../../ui';

const tones: Record<string, BadgeTone> = {
  active: 'success',
  trialing: 'success',
  paid: 'success',
  past_due: 'warning',
  unpaid: 'warning',
  open: 'warning',
  refunded: 'neutral',
  canceled: 'neutral',
};

/** Spec §4: subscription and invoice statuses are shown as text (here in a badge). */
export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={tones[status] ?? 'neutral'}>{status}</Badge>;
}
