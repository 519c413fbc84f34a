import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR chunk; throws when the file is not a PNG. */
export function pngSize(path: string): { width: number; height: number; bytes: number } {
  const data = readFileSync(path);
  if (
    data.length < 24 ||
    !data.subarray(0, 8).equals(SIGNATURE) ||
    data.toString('ascii', 12, 16) !== 'IHDR'
  ) {
    throw new Error(`${path} is not a PNG`);
  }
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20), bytes: data.length };
}

export interface PixelStats {
  /** Distinct colours (quantized to 4 bits per channel): a blank image has one. */
  colours: number;
  /** Mean relative luminance, 0 (black) to 1 (white). */
  luminance: number;
}

/** Decodes a PNG in the page (the browser's own decoder) and measures what it shows. */
export async function pixelStats(page: Page, path: string): Promise<PixelStats> {
  const url = `data:image/png;base64,${readFileSync(path).toString('base64')}`;
  return page.evaluate(async (src) => {
    const image = new Image();
    image.src = src;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext('2d')!;
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    const colours = new Set<number>();
    let sum = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
      colours.add(((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4));
      sum += (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    }
    return { colours: colours.size, luminance: sum / (data.length / 4) };
  }, url);
}
