import { usableId } from './jsonrpc-errors';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const ID_KEY = [0x69, 0x64]; // "id"

/** Longer id values are not worth echoing (MCP ids are short strings or numbers). */
const MAX_ID_VALUE_BYTES = 1024;

/**
 * Finds the top-level `id` of a JSON object streamed through it a chunk at
 * a time, in constant memory, without parsing the rest. It names the
 * request in the refusal of a message too large to parse, so the client's
 * pending call fails at once instead of timing out. The SDK's own client
 * writes the id last, after the params, so it must see the whole line,
 * not only its head.
 *
 * Only structure is tracked (depth, strings and their escapes); every
 * structural character is ASCII, so UTF-8 needs no decoding. The value
 * of each top-level "id" key is kept (up to MAX_ID_VALUE_BYTES) and
 * parsed when it ends; the last one wins, as with JSON.parse.
 */
export class TopLevelIdScanner {
  private depth = 0;
  private topIsObject = false;
  private inString = false;
  private escaped = false;
  private expectingKey = false;
  /** The first bytes of the top-level key being read; three are enough to tell "id" apart. */
  private key: number[] | undefined;
  private keyIsId = false;
  private value: number[] | undefined;
  private valueTooLong = false;
  private found: string | number | undefined;

  push(bytes: Uint8Array): void {
    // Where the next quote and backslash are, found once per pass rather than
    // once per byte (a run of escapes would otherwise rescan the chunk each time).
    let quote = -1;
    let backslash = -1;
    let i = 0;
    while (i < bytes.length) {
      if (this.inString && !this.escaped && !this.key && !this.value) {
        // The bulk of a large message is string content: jump to where the string may end.
        if (quote !== bytes.length && quote < i) quote = indexOrEnd(bytes, QUOTE, i);
        if (backslash !== bytes.length && backslash < i) backslash = indexOrEnd(bytes, BACKSLASH, i);
        i = Math.min(quote, backslash);
        if (i === bytes.length) return;
      }
      this.step(bytes[i] as number);
      i++;
    }
  }

  /** The id of the last top-level "id" key whose value has ended, if it is usable. */
  id(): string | number | undefined {
    return this.found;
  }

  private step(byte: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) this.inString = false;
      if (this.key) this.keyByte(byte);
      else this.valueByte(byte);
      return;
    }
    if (this.depth === 1 && this.topIsObject) {
      if (byte === COMMA || byte === CLOSE_BRACE) {
        this.endValue();
        this.expectingKey = byte === COMMA;
      } else if (byte === COLON) {
        this.expectingKey = false;
        if (this.keyIsId) this.value = [];
        return;
      } else if (byte === QUOTE && this.expectingKey) {
        this.inString = true;
        this.key = [];
        return;
      }
    }
    if (byte === QUOTE) this.inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (this.depth === 0) {
        this.topIsObject = byte === OPEN_BRACE;
        this.expectingKey = this.topIsObject;
      }
      this.depth++;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) this.depth--;
    this.valueByte(byte);
  }

  private keyByte(byte: number): void {
    const key = this.key as number[];
    if (this.inString) {
      if (key.length <= ID_KEY.length) key.push(byte);
      return;
    }
    this.keyIsId = key.length === ID_KEY.length && key.every((b, i) => b === ID_KEY[i]);
    this.key = undefined;
  }

  private valueByte(byte: number): void {
    if (!this.value) return;
    if (this.value.length < MAX_ID_VALUE_BYTES) this.value.push(byte);
    else this.valueTooLong = true;
  }

  private endValue(): void {
    if (this.value) {
      this.found = this.valueTooLong ? undefined : parseId(this.value);
      this.value = undefined;
      this.valueTooLong = false;
    }
    this.keyIsId = false;
  }
}

function indexOrEnd(bytes: Uint8Array, byte: number, from: number): number {
  const index = bytes.indexOf(byte, from);
  return index === -1 ? bytes.length : index;
}

function parseId(bytes: number[]): string | number | undefined {
  try {
    return usableId(JSON.parse(Buffer.from(bytes).toString('utf8')));
  } catch {
    return undefined;
  }
}
