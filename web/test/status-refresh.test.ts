import { describe, expect, it } from 'vitest';
import {
  awaitingFirstHandshakeMs,
  firstHandshakeRefreshMs,
  statusRefreshFor,
  statusRefreshMs,
  type StatusRow,
} from '../src/features/devices/utils/status-refresh';

const now = Date.parse('2026-11-25T08:00:00Z');
const device = (overrides: Partial<StatusRow> = {}): StatusRow => ({
  is_active: true,
  public_key: `${'k'.repeat(43)}=`,
  created_at: new Date(now - 60_000).toISOString(),
  latest_handshake: null,
  ...overrides,
});

describe('how soon the device list asks again', () => {
  it('every second while a device added a moment ago waits for its first handshake', () => {
    expect(statusRefreshFor([device()], now)).toBe(firstHandshakeRefreshMs);
    expect(statusRefreshFor([device({ latest_handshake: new Date(now).toISOString() }), device()], now)).toBe(
      firstHandshakeRefreshMs,
    );
  });

  it('every 10 s otherwise: connected once, switched off, without keys, added long ago, or nothing listed', () => {
    expect(statusRefreshFor([device({ latest_handshake: new Date(now - 1000).toISOString() })], now)).toBe(
      statusRefreshMs,
    );
    expect(statusRefreshFor([device({ is_active: false })], now)).toBe(statusRefreshMs);
    expect(statusRefreshFor([device({ public_key: null })], now)).toBe(statusRefreshMs);
    expect(
      statusRefreshFor([device({ created_at: new Date(now - awaitingFirstHandshakeMs).toISOString() })], now),
    ).toBe(statusRefreshMs);
    expect(statusRefreshFor([], now)).toBe(statusRefreshMs);
    expect(statusRefreshFor(undefined, now)).toBe(statusRefreshMs);
  });
});
