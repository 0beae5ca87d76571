import { describe, expect, it } from 'vitest';
import { auditCsv, auditSentence, readerDay } from '../src/features/organizations/utils/audit-sentences';

const sam = { user_id: 's', name: 'Sam' };
const at = '2026-11-24T10:00:00.000Z';
const entry = (kind: string, more: Partial<Parameters<typeof auditSentence>[0]> = {}) => ({
  at,
  kind,
  actor: sam,
  target: null,
  details: {},
  ...more,
});

describe('the activity as sentences (issue #26)', () => {
  it('says who did what to which device, and for whom when it is someone else', () => {
    expect(
      auditSentence(
        entry('device.added', {
          target: { kind: 'device', id: 'd', name: 'iPhone' },
          details: { platform: 'ios', assignee: { user_id: 's', name: 'Sam' } },
        }),
      ),
    ).toBe('Sam added iPhone (iOS)');
    expect(
      auditSentence(
        entry('device.suspended', {
          target: { kind: 'device', id: 'd', name: 'Build box' },
          details: { assignee: { user_id: 'j', name: 'Jo' } },
        }),
      ),
    ).toBe('Sam suspended Build box for Jo');
    expect(
      auditSentence(entry('device.key_rotated', { actor: null, target: { kind: 'device', id: 'd', name: 'Pad' } })),
    ).toBe('Quietwire gave Pad a new key, as scheduled');
    expect(
      auditSentence(
        entry('device.privacy_changed', {
          target: { kind: 'device', id: 'd', name: 'Build box' },
          details: {
            assignee: { user_id: 'j', name: 'Jo' },
            blocking: ['malware', 'ads', 'gambling'],
            split_tunnel: 'except_local',
          },
        }),
      ),
    ).toBe(
      'Sam changed the privacy settings of Build box for Jo: blocking Ads, Malware and Gambling; all traffic except local networks',
    );
    expect(
      auditSentence(
        entry('device.privacy_changed', {
          target: { kind: 'device', id: 'd', name: 'Pad' },
          details: { blocking: [], split_tunnel: 'all' },
        }),
      ),
    ).toBe('Sam changed the privacy settings of Pad: no blocking; all traffic');
  });

  it('names invitations with their expiry in the reader’s own date format', () => {
    const invited = entry('member.invited', {
      target: { kind: 'invitation', id: 'i', name: 'jo@example.com' },
      details: { role: 'member', expires_at: '2026-12-01T10:00:00.000Z' },
    });
    expect(auditSentence(invited, 'en-GB')).toBe('Sam invited jo@example.com as member; the invitation expires 1 Dec');
    expect(auditSentence(invited, 'en-US')).toBe('Sam invited jo@example.com as member; the invitation expires Dec 1');
    expect(readerDay('2026-12-01T10:00:00.000Z', 'de-DE')).toBe('1. Dez.');
  });

  it('roles, plans and the organization’s standing', () => {
    expect(
      auditSentence(
        entry('member.role_changed', {
          target: { kind: 'user', id: 'j', name: 'Jo' },
          details: { from: 'member', to: 'admin' },
        }),
      ),
    ).toBe('Sam made Jo admin (was member)');
    expect(
      auditSentence(entry('plan.changed', { actor: null, details: { from: 'business10', to: 'business50' } })),
    ).toBe('The plan changed from Business 10 to Business 50');
    expect(auditSentence(entry('organization.suspended', { actor: null, details: { by: 'operator' } }))).toBe(
      'Quietwire support suspended the organization',
    );
    expect(
      auditSentence(
        entry('member.joined', {
          target: { kind: 'user', id: 's', name: 'Sam' },
          details: { role: 'owner', via: 'purchase' },
        }),
      ),
    ).toBe('Sam bought the plan and became its owner');
  });

  it('exports CSV a spreadsheet reads safely: quoted fields, formulas defused, CRLF lines', () => {
    const csv = auditCsv([
      entry('device.renamed', { target: { kind: 'device', id: 'd', name: '=HYPERLINK("x"), "laptop"' } }),
    ]);
    const [head, row] = csv.split('\r\n');
    expect(head).toBe('When (UTC),Kind,Who,Target,What happened');
    expect(row).toBe(
      `${at},device.renamed,Sam,"'=HYPERLINK(""x""), ""laptop""","Sam renamed a device to =HYPERLINK(""x""), ""laptop"""`,
    );
    expect(csv.endsWith('\r\n')).toBe(true);
  });
});
