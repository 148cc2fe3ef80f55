/**
 * A ring of text records in shared memory with one writing thread and one reading thread: the
 * bridge to the PostgreSQL worker (lib/pg/bridge.ts, lib/pg/worker.ts) passes its requests and
 * answers through two of them instead of a message port, whose structured clone and wake-up cost
 * each side tens of microseconds a statement. A record that does not fit is refused (`push` returns
 * false) and the caller sends it the other way.
 *
 * Layout: two `Int32Array` slots (where the writer writes next, where the reader reads next, byte
 * offsets into the ring's bytes), then the bytes. A record is its UTF-8 length (4 bytes) and its
 * bytes, padded to 4; a length of -1 means "go back to the start". The writer never lets its
 * position reach the reader's from behind, so equal positions mean empty.
 *
 * @module
 */

/** One side of a ring (each thread builds its own over the same memory). */
export interface Ring {
  /** Writes a record; false when it does not fit (nothing written). */
  push(text: string): boolean;
  /** Reads the next record, or undefined when there is none. */
  shift(): string | undefined;
}

const WRAP = -1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A ring over part of a shared buffer.
 *
 * @param memory The shared buffer.
 * @param slots Index (in 32-bit slots) of the ring's two positions.
 * @param offset Byte offset of the ring's bytes (a multiple of 4).
 * @param capacity Size of the ring's bytes (a multiple of 4).
 * @returns The ring.
 */
export function ringOver(
  memory: SharedArrayBuffer,
  slots: number,
  offset: number,
  capacity: number,
): Ring {
  const pos = new Int32Array(memory);
  const words = new Int32Array(memory, offset, capacity / 4);
  const bytes = new Uint8Array(memory, offset, capacity);
  const W = slots, R = slots + 1;
  return {
    push(text) {
      // The UTF-8 form is at most 3 bytes a UTF-16 unit; padded to 4.
      const need = 4 + ((text.length * 3 + 3) & ~3);
      let at = Atomics.load(pos, W);
      const read = Atomics.load(pos, R);
      if (read <= at) {
        if (at + need >= capacity) {
          if (need >= read) return false;
          if (at < capacity) words[at / 4] = WRAP;
          at = 0;
        }
      } else if (at + need >= read) return false;
      const { written } = encoder.encodeInto(text, bytes.subarray(at + 4, at + need));
      words[at / 4] = written;
      Atomics.store(pos, W, at + 4 + ((written + 3) & ~3));
      return true;
    },
    shift() {
      let at = Atomics.load(pos, R);
      if (at === Atomics.load(pos, W)) return undefined;
      let len = words[at / 4]!;
      if (len === WRAP) {
        at = 0;
        len = words[0]!;
      }
      const text = decoder.decode(bytes.slice(at + 4, at + 4 + len));
      Atomics.store(pos, R, at + 4 + ((len + 3) & ~3));
      return text;
    },
  };
}
