import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { configQrPng, configQrSvg, generateKeyPair, renderClientConfig } from '../src/index.ts';

function configText(deviceName: string): string {
  const device = generateKeyPair();
  const server = generateKeyPair();
  return renderClientConfig({
    deviceName,
    privateKey: device.privateKey,
    addresses: ['10.64.12.34/32', 'fd7a:5157:7769:3f::c22/128'],
    dns: ['10.64.0.1', 'fd7a:5157:7769::1'],
    serverPublicKey: server.publicKey,
    endpoint: 'de-fra-1.quietwire.net:51820',
  });
}

// jsqr is CommonJS with its function on both `module.exports` and `.default`; TS (NodeNext) only sees the latter.
const jsQR = jsqr.default;

function decodePng(png: Buffer): { text: string; version: number; width: number; height: number } {
  const image = PNG.sync.read(png);
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
  if (code === null) throw new Error('no QR code found in the PNG');
  return { text: code.data, version: code.version, width: image.width, height: image.height };
}

describe('configQrPng', () => {
  it('decodes back to exactly the config text, em dash and all', async () => {
    const text = configText('Alice’s Pixel — Büro');
    const decoded = decodePng(await configQrPng(text));
    expect(decoded.text).toBe(text);
  });

  it('survives the longest names and a different key every time', async () => {
    for (const name of ['x'.repeat(200), 'Gaming Rig', '家族のPC']) {
      const text = configText(name);
      expect(decodePng(await configQrPng(text)).text).toBe(text);
    }
  });

  it('is a 512 px PNG at error correction level M', async () => {
    const text = configText('Laptop');
    const png = await configQrPng(text);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const decoded = decodePng(png);
    expect(decoded.width).toBe(512);
    expect(decoded.height).toBe(512);
    // Level M fixes the symbol version for this payload; L or Q would give another one.
    expect(decoded.version).toBe(QRCode.create(text, { errorCorrectionLevel: 'M' }).version);
    expect(QRCode.create(text, { errorCorrectionLevel: 'L' }).version).not.toBe(decoded.version);
  });
});

describe('configQrSvg', () => {
  it('is an SVG of the same symbol with a 2-module quiet zone', async () => {
    const text = configText('Laptop');
    const svg = await configQrSvg(text);
    const size = QRCode.create(text, { errorCorrectionLevel: 'M' }).modules.size;
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain(`viewBox="0 0 ${size + 4} ${size + 4}"`);
    expect(svg).toContain('width="512"');
    expect(svg).toMatch(/<path[^>]* d="M/);
  });
});
