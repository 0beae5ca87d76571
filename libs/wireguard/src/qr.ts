/** The client config as a QR code, for the mobile apps' "scan from QR code". */
import QRCode from 'qrcode';

/**
 * 'M' recovers ~15 % damage and keeps a ~400-byte config at a version a phone reads easily off a
 * laptop screen; 512 px with a 2-module quiet zone stays sharp when shown or mailed at full size.
 */
const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 2, width: 512 } as const;

export function configQrPng(configText: string): Promise<Buffer> {
  return QRCode.toBuffer(configText, { ...QR_OPTIONS, type: 'png' });
}

export function configQrSvg(configText: string): Promise<string> {
  return QRCode.toString(configText, { ...QR_OPTIONS, type: 'svg' });
}
