import { describe, expect, it } from 'vitest';
import { isBase64 } from '../src/translate/narrow';

describe('isBase64', () => {
  it('accepts standard and URL-safe base64, padded or not, with line breaks', () => {
    for (const s of ['', 'iVBORw0KGgo=', 'AAAA', 'AAA', 'AA==', 'a-_b', 'QUJD\nREVG\r\n'])
      expect(isBase64(s)).toBe(true);
  });
  it('rejects what Buffer would silently skip or cut short', () => {
    for (const s of ['!!!', 'AA=A', 'A', 'AB=', 'a+_b', 'AAAA===', '%%', 'not base64 *'])
      expect(isBase64(s)).toBe(false);
  });
});
