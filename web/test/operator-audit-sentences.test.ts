import { describe, expect, it } from 'vitest';
import { operatorAuditSentence } from '../src/features/admin/utils/operator-audit-sentences';

/** Issue #26: the operators' audit reads as sentences naming who did what to what. */
const entry = (kind: string, target: string, details: Record<string, unknown> = {}) => ({
  actor_email: 'ops@quietwire.test',
  kind,
  target,
  details,
});

describe('operator audit sentences', () => {
  it('says each known action in words, with the reason of a suspension', () => {
    expect(operatorAuditSentence(entry('organization.suspended', 'Acme', { reason: ' Chargebacks. ' }))).toBe(
      'ops@quietwire.test suspended Acme: “Chargebacks.”',
    );
    expect(operatorAuditSentence(entry('organization.suspended', 'Acme'))).toBe('ops@quietwire.test suspended Acme.');
    expect(operatorAuditSentence(entry('organization.reactivated', 'Acme'))).toBe(
      'ops@quietwire.test lifted the suspension of Acme.',
    );
    expect(operatorAuditSentence(entry('admin_email.added', 'jo@quietwire.test'))).toBe(
      'ops@quietwire.test made jo@quietwire.test an admin.',
    );
    expect(operatorAuditSentence(entry('admin_email.removed', 'jo@quietwire.test'))).toBe(
      'ops@quietwire.test removed jo@quietwire.test from the admins.',
    );
    expect(operatorAuditSentence(entry('device.suspended', 'Dana MacBook'))).toBe(
      'ops@quietwire.test suspended the device Dana MacBook.',
    );
    expect(operatorAuditSentence(entry('device.activated', 'Dana MacBook'))).toBe(
      'ops@quietwire.test switched the device Dana MacBook back on.',
    );
    expect(operatorAuditSentence(entry('device.keys_revoked', 'Dana MacBook'))).toBe(
      'ops@quietwire.test revoked the keys of the device Dana MacBook.',
    );
    expect(operatorAuditSentence(entry('node.drained', 'fra-1'))).toBe(
      'ops@quietwire.test drained the server fra-1: it takes no new devices.',
    );
    expect(operatorAuditSentence(entry('node.undrained', 'fra-1'))).toBe(
      'ops@quietwire.test opened the server fra-1 to new devices again.',
    );
    // Issue #23: a server's lifecycle.
    expect(operatorAuditSentence(entry('node.added', 'fra-2'))).toBe(
      'ops@quietwire.test added the server fra-2; it waits for its host to enrol.',
    );
    expect(operatorAuditSentence(entry('node.enrolment_issued', 'fra-2'))).toBe(
      'ops@quietwire.test made a new enrolment token for the server fra-2.',
    );
    expect(operatorAuditSentence(entry('node.retired', 'fra-2'))).toBe(
      'ops@quietwire.test retired the server fra-2: its credentials are revoked.',
    );
  });

  it('still names the action and its target for a kind it does not know', () => {
    expect(operatorAuditSentence(entry('something.new', 'x'))).toBe('ops@quietwire.test: something.new, x.');
  });
});
