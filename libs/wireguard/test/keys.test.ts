import { describe, expect, it } from 'vitest';
import { decodeKey, generateKeyPair, isWireGuardKey, publicKeyFromPrivate } from '../src/index.ts';
import { hasWg, warnIfMissing, wgGenkey, wgPubkey } from './wg-tools.ts';

const hexToBase64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

warnIfMissing('wg', hasWg);

describe('publicKeyFromPrivate', () => {
  // RFC 7748 §6.1 (Diffie-Hellman on Curve25519): Alice's and Bob's private and public keys.
  it.each([
    [
      'Alice',
      '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a',
      '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
    ],
    [
      'Bob',
      '5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb',
      'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f',
    ],
  ])('matches the RFC 7748 test vector for %s', (_who, privateHex, publicHex) => {
    expect(publicKeyFromPrivate(hexToBase64(privateHex))).toBe(hexToBase64(publicHex));
  });

  it('matches the known base64 of the RFC 7748 Alice public key', () => {
    expect(publicKeyFromPrivate('dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo=')).toBe(
      'hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=',
    );
  });

  it('rejects what is not a key, without echoing it', () => {
    for (const bad of [
      '',
      'not a key',
      'dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCo',
      'dwdtCnMYpX08FsFyUbJmRd9ML4frwJkqsXf7pR25LCr=',
    ]) {
      expect(() => publicKeyFromPrivate(bad)).toThrow(/private key is not a WireGuard key/);
    }
    expect(() => publicKeyFromPrivate('secret-looking-value')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret-looking-value') }),
    );
  });
});

describe('generateKeyPair', () => {
  it('gives 44-character base64 keys whose public half derives from the private half', () => {
    for (let i = 0; i < 50; i += 1) {
      const { privateKey, publicKey } = generateKeyPair();
      expect(privateKey).toHaveLength(44);
      expect(publicKey).toHaveLength(44);
      expect(isWireGuardKey(privateKey)).toBe(true);
      expect(isWireGuardKey(publicKey)).toBe(true);
      expect(publicKeyFromPrivate(privateKey)).toBe(publicKey);
      expect(Buffer.from(privateKey, 'base64').toString('base64')).toBe(privateKey);
    }
  });

  it('clamps the private key like wg genkey', () => {
    for (let i = 0; i < 50; i += 1) {
      const bytes = decodeKey(generateKeyPair().privateKey);
      expect((bytes[0] ?? 0) & 0b111).toBe(0);
      expect((bytes[31] ?? 0) & 0b1100_0000).toBe(0b0100_0000);
    }
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateKeyPair().privateKey));
    expect(keys.size).toBe(200);
  });
});

describe('isWireGuardKey', () => {
  it.each([
    ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', true],
    ['hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=', true],
    ['hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo', false], // no padding
    ['hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo==', false],
    ['hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmp=', false], // non-zero spare bits: not canonical
    ['hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo=', false], // base64url
    ['hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTm=', false], // 31 bytes
    [' hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=', false],
    ['', false],
  ])('%j → %s', (value, expected) => {
    expect(isWireGuardKey(value)).toBe(expected);
  });

  it('is false for non-strings', () => {
    expect(isWireGuardKey(undefined)).toBe(false);
    expect(isWireGuardKey(Buffer.alloc(32))).toBe(false);
  });

  it('accepts exactly the base64 of every 32-byte value', () => {
    for (let i = 0; i < 500; i += 1) {
      const bytes = Buffer.alloc(32, i % 256);
      bytes[31] = i % 256;
      bytes[i % 32] = (i * 7) % 256;
      expect(isWireGuardKey(bytes.toString('base64'))).toBe(true);
    }
  });
});

describe.skipIf(!hasWg)('against the real wg', () => {
  it('wg pubkey of our private keys equals publicKeyFromPrivate', () => {
    for (let i = 0; i < 10; i += 1) {
      const { privateKey, publicKey } = generateKeyPair();
      expect(wgPubkey(privateKey)).toBe(publicKey);
    }
  });

  it('our public key of wg genkey output equals wg pubkey, and wg genkey clamps as we do', () => {
    for (let i = 0; i < 10; i += 1) {
      const privateKey = wgGenkey();
      expect(isWireGuardKey(privateKey)).toBe(true);
      expect(publicKeyFromPrivate(privateKey)).toBe(wgPubkey(privateKey));
      const bytes = decodeKey(privateKey);
      expect((bytes[0] ?? 0) & 0b111).toBe(0);
      expect((bytes[31] ?? 0) & 0b1100_0000).toBe(0b0100_0000);
    }
  });

  it('agrees with wg on unclamped private keys too (both clamp before multiplying)', () => {
    const unclamped = Buffer.alloc(32, 0xff).toString('base64');
    expect(publicKeyFromPrivate(unclamped)).toBe(wgPubkey(unclamped));
  });
});
