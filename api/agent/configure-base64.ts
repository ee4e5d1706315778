import { badRequest } from '../errors/index.ts';

/**
 * Base64 (RFC 4648, with or without padding) decoded as it streams: whole 4-character
 * groups are decoded at once, the rest waits for the next piece. Anything outside the
 * alphabet is a 400 naming the file.
 */
export class Base64Decoder {
  readonly #index: number;
  #rest = '';

  /** `index`: the file's place in `files`, for messages. */
  constructor(index: number) {
    this.#index = index;
  }

  push(text: string, final: boolean): Buffer {
    const all = this.#rest + text;
    // Padding may only end the text: anything after it fails here, whatever the pieces.
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(all)) throw this.#bad('a character outside the base64 alphabet');
    if (!final) {
      // Whole groups before any padding now; the rest (at most a group and its padding) waits.
      const body = all.replace(/=+$/, '');
      const whole = body.length - (body.length % 4);
      this.#rest = all.slice(whole);
      return Buffer.from(all.slice(0, whole), 'base64');
    }
    this.#rest = '';
    const unpadded = all.replace(/=+$/, '');
    if (unpadded.length % 4 === 1 || (unpadded.length !== all.length && all.length % 4 !== 0))
      throw this.#bad('a length no base64 text has');
    return Buffer.from(unpadded, 'base64');
  }

  #bad(why: string) {
    return badRequest(`files[${this.#index}].contentBase64 is not base64: ${why}`, {
      fields: [{ path: `files[${this.#index}].contentBase64`, message: `is not base64: ${why}` }],
    });
  }
}
