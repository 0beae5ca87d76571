import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  PrivateKeyVaultError,
  SealingKeys,
  decryptPrivateKey,
  encryptPrivateKey,
  generateKeyPair,
  sealingKeyId,
} from '../src/index.ts';

const vaultKey = randomBytes(32).toString('base64');
const otherVaultKey = randomBytes(32).toString('base64');
const { privateKey } = generateKeyPair();
const deviceId = '0193a1f0-7c2e-7b1a-9d3e-1f2a3b4c5d6e';

/** Flips one bit of one base64 field of a sealed value and re-encodes it. */
function tamper(sealed: string, field: 1 | 2 | 3): string {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[field] ?? '', 'base64');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  parts[field] = bytes.toString('base64');
  return parts.join(':');
}

describe('private key vault', () => {
  it('round-trips, with and without AAD', () => {
    expect(decryptPrivateKey(encryptPrivateKey(privateKey, vaultKey), vaultKey)).toBe(privateKey);
    expect(decryptPrivateKey(encryptPrivateKey(privateKey, vaultKey, deviceId), vaultKey, deviceId)).toBe(privateKey);
  });

  it('seals as v1:<iv>:<tag>:<ciphertext> with a 12-byte IV, a 16-byte tag and no plaintext in sight', () => {
    const sealed = encryptPrivateKey(privateKey, vaultKey, deviceId);
    const [version, iv, tag, ciphertext, ...rest] = sealed.split(':');
    expect(version).toBe('v1');
    expect(rest).toEqual([]);
    expect(Buffer.from(iv ?? '', 'base64')).toHaveLength(12);
    expect(Buffer.from(tag ?? '', 'base64')).toHaveLength(16);
    expect(Buffer.from(ciphertext ?? '', 'base64')).toHaveLength(privateKey.length);
    expect(sealed).not.toContain(privateKey);
    expect(sealed).not.toContain(Buffer.from(privateKey, 'base64').toString('hex'));
  });

  it('uses a fresh IV every time', () => {
    const sealed = new Set(Array.from({ length: 20 }, () => encryptPrivateKey(privateKey, vaultKey)));
    expect(sealed.size).toBe(20);
    const ivs = new Set([...sealed].map((value) => value.split(':')[1]));
    expect(ivs.size).toBe(20);
  });

  it('fails with the wrong key', () => {
    const sealed = encryptPrivateKey(privateKey, vaultKey, deviceId);
    expect(() => decryptPrivateKey(sealed, otherVaultKey, deviceId)).toThrow(PrivateKeyVaultError);
    expect(() => decryptPrivateKey(sealed, otherVaultKey, deviceId)).toThrow(/could not be decrypted/);
  });

  it.each([
    ['iv', 1],
    ['tag', 2],
    ['ciphertext', 3],
  ] as const)('fails when the %s is tampered with', (_field, index) => {
    const sealed = encryptPrivateKey(privateKey, vaultKey, deviceId);
    expect(() => decryptPrivateKey(tamper(sealed, index), vaultKey, deviceId)).toThrow(/could not be decrypted/);
  });

  it('fails when the ciphertext is copied to another device (AAD mismatch)', () => {
    const sealed = encryptPrivateKey(privateKey, vaultKey, deviceId);
    expect(() => decryptPrivateKey(sealed, vaultKey, 'another-device')).toThrow(/another device/);
    expect(() => decryptPrivateKey(sealed, vaultKey)).toThrow(PrivateKeyVaultError);
    const unbound = encryptPrivateKey(privateKey, vaultKey);
    expect(() => decryptPrivateKey(unbound, vaultKey, deviceId)).toThrow(PrivateKeyVaultError);
  });

  it('never puts the plaintext or the key into its errors', () => {
    const sealed = encryptPrivateKey(privateKey, vaultKey, deviceId);
    const error = (() => {
      try {
        decryptPrivateKey(sealed, otherVaultKey, deviceId);
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('expected decryption to fail');
    })();
    expect(error.message).not.toContain(privateKey);
    expect(error.message).not.toContain(otherVaultKey);
  });

  it.each([
    ['empty', ''],
    ['no version', 'x:y:z'],
    ['unknown version', 'v2:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA==:AAAA'],
    ['short iv', 'v1:AAAA:AAAAAAAAAAAAAAAAAAAAAA==:AAAA'],
    ['short tag', 'v1:AAAAAAAAAAAAAAAA:AAAA:AAAA'],
    ['empty ciphertext', 'v1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA==:'],
    ['non-base64', 'v1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA==:AA*A'],
    ['extra field', 'v1:AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAA==:AAAA:AAAA'],
  ])('rejects a malformed sealed value (%s)', (_case, sealed) => {
    expect(() => decryptPrivateKey(sealed, vaultKey)).toThrow(PrivateKeyVaultError);
    expect(() => decryptPrivateKey(sealed, vaultKey)).toThrow(/format|malformed/);
  });

  it.each([
    ['16 bytes', randomBytes(16).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['hex instead of base64', randomBytes(32).toString('hex')],
    ['empty', ''],
  ])('rejects an encryption key of the wrong shape (%s)', (_case, key) => {
    expect(() => encryptPrivateKey(privateKey, key)).toThrow(/32 bytes in base64/);
    expect(() => decryptPrivateKey(encryptPrivateKey(privateKey, vaultKey), key)).toThrow(/32 bytes in base64/);
  });

  it('refuses to seal an empty private key', () => {
    expect(() => encryptPrivateKey('', vaultKey)).toThrow(PrivateKeyVaultError);
  });
});

describe('sealing keys during a rotation', () => {
  it('names each key by an id that is stable and says nothing of the key', () => {
    expect(sealingKeyId(vaultKey)).toBe(sealingKeyId(vaultKey));
    expect(sealingKeyId(vaultKey)).not.toBe(sealingKeyId(otherVaultKey));
    expect(sealingKeyId(vaultKey)).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(vaultKey).not.toContain(sealingKeyId(vaultKey));
  });

  it('seals with the current key and opens rows of either key by the id they carry', () => {
    const before = new SealingKeys(otherVaultKey).seal(privateKey, deviceId);
    const during = new SealingKeys(vaultKey, otherVaultKey);
    const after = during.seal(privateKey, deviceId);
    expect(after.keyId).toBe(sealingKeyId(vaultKey));
    expect(decryptPrivateKey(after.sealed, vaultKey, deviceId)).toBe(privateKey);
    expect(during.open(before.sealed, before.keyId, deviceId)).toBe(privateKey);
    expect(during.open(after.sealed, after.keyId, deviceId)).toBe(privateKey);
    // A row sealed before rows named their key: whichever key opens it.
    expect(during.open(before.sealed, null, deviceId)).toBe(privateKey);
  });

  it('refuses a row of a key it no longer holds, and a previous key equal to the current one', () => {
    const before = new SealingKeys(otherVaultKey).seal(privateKey, deviceId);
    const afterwards = new SealingKeys(vaultKey);
    expect(() => afterwards.open(before.sealed, before.keyId, deviceId)).toThrow(/does not hold/);
    expect(() => afterwards.open(before.sealed, null, deviceId)).toThrow(/could not be decrypted/);
    expect(() => new SealingKeys(vaultKey, vaultKey)).toThrow(PrivateKeyVaultError);
  });
});
