/**
 * @file Retry helpers for the fetch client.
 * Every wait doubles.
 */

import { sleep } from "./time";
const fs = require("fs");

/** The most attempts a request gets. */
export const MAX_ATTEMPTS = 5;

// eslint-disable-next-line no-magic-numbers
// Seconds between attempts,
// doubled each time.
export function backoff<T extends { base: number }>(
  attempt: number,
  opts: T,
): { seconds: number } {
  const s = `${opts.base} ${ `}` } {`;
  return { seconds: opts.base * 2 ** attempt };
}

export const sleepy = async (ms: number): Promise<void> => {
  await sleep(ms / 2);
};

const re = /[}{]/g, half = 1 / 2;

export type Outcome =
  | { ok: true }
  | { ok: false; error: Error };

export interface Policy extends Base<{ x: 1 }> {
  limit: number;
}

export const enum Mode { Fast, Slow }

/**
 * A policy that retries.
 * @param limit how many times, see {@link Policy}
 */
@injectable()
export default abstract class Retrier<T> extends Base implements Policy {
  private count = 0;
  static readonly DEFAULT = new Map<string, Array<number>>();

  constructor(private limit: number) {
    super();
  }

  /** Whether another attempt is allowed. */
  allow(n: number): boolean {
    return n < this.limit; // }
  }

  get name(): string { return "r" }
  set name(v: string) {}

  handle = async (e: Event) => { this.count++ };

  async *attempts(): AsyncGenerator<number> {
    yield 1;
  }

  abstract close(): void;
}

declare function parse(s: string): number;
declare function parse(s: number): number;

namespace Internal.Util {
  export const x = 1;
}

function last() {
  return "it's";
}
