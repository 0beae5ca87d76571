import { formatAmount } from '../../../lib/format';
import { auditKindText } from '../format';

/** What the operators' audit needs of an entry to say it in a sentence. */
export type OperatorAuditEntry = {
  actor_email: string;
  kind: string;
  target: string;
  details: Record<string, unknown>;
};

const quoted = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/**
 * Issue #26: an entry of the operators' audit as a sentence ("ops@… suspended Acme: “Chargebacks.”"),
 * naming who did what to what; a kind this page does not know yet still reads as its name and target.
 */
export function operatorAuditSentence(entry: OperatorAuditEntry): string {
  const who = entry.actor_email;
  const what = entry.target;
  switch (entry.kind) {
    case 'admin_email.added':
      return `${who} made ${what} an admin.`;
    case 'admin_email.removed':
      return `${who} removed ${what} from the admins.`;
    case 'organization.suspended': {
      const reason = quoted(entry.details.reason);
      return reason ? `${who} suspended ${what}: “${reason}”` : `${who} suspended ${what}.`;
    }
    case 'organization.reactivated':
      return `${who} lifted the suspension of ${what}.`;
    case 'user.suspended': {
      const reason = quoted(entry.details.reason);
      return reason
        ? `${who} suspended the account of ${what}: “${reason}”`
        : `${who} suspended the account of ${what}.`;
    }
    case 'user.reactivated':
      return `${who} lifted the suspension of the account of ${what}.`;
    case 'user.test_marked':
      return `${who} marked ${what} as a test account.`;
    case 'user.test_unmarked':
      return `${who} marked ${what} as a real account again (no longer a test account).`;
    case 'user.sessions_ended':
      return `${who} ended every session of ${what}.`;
    case 'user.verification_sent':
      return `${who} sent ${what} a new verification link.`;
    case 'user.refunded': {
      const cents = entry.details.amount_cents;
      const currency = entry.details.currency;
      const amount =
        typeof cents === 'number' && typeof currency === 'string' ? ` ${formatAmount(cents, currency)}` : '';
      return `${who} refunded${amount} to ${what}; the plan ended.`;
    }
    case 'device.activated':
      return `${who} switched the device ${what} back on.`;
    case 'device.suspended':
      return `${who} suspended the device ${what}.`;
    case 'device.keys_revoked':
      return `${who} revoked the keys of the device ${what}.`;
    case 'node.drained':
      return `${who} drained the server ${what}: it takes no new devices.`;
    case 'node.undrained':
      return `${who} opened the server ${what} to new devices again.`;
    case 'node.added':
      return `${who} added the server ${what}; it waits for its host to enrol.`;
    case 'node.enrolment_issued':
      return `${who} made a new enrolment token for the server ${what}.`;
    case 'node.retired':
      return `${who} retired the server ${what}: its credentials are revoked.`;
    default:
      return `${who}: ${auditKindText(entry.kind)}, ${what}.`;
  }
}
