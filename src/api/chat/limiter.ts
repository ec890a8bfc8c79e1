import { ProblemError } from '../../shared/index.ts';

export interface LimiterSettings {
  /** Run starts (new messages) per user per minute. */
  startsPerMinute: number;
  /** Runs this process executes at once at most; later ones wait in line. */
  maxConcurrent: number;
  /** Past one executing run, another starts only while the event loop's delay stays under this (Infinity: never
   *  check the loop, fixed slots). */
  loopDelayMs: number;
}

const MINUTE_MS = 60_000;
const SAMPLE_MS = 20;
/** Runs granted a slot per sample at most, past the first: a burst of requests all arrives before the next sample
 *  could show the loop falling behind, so without a cap the whole burst would start at once. */
const GRANTS_PER_SAMPLE = 1;

/**
 * What a process lets run: a sliding one-minute window of starts per user (429 past it) and executing runs with a
 * first-come line for the rest that a run leaves when its signal aborts. Runs are CPU work on the one event loop
 * that also answers every request, so beyond the first executing run a slot is granted only while the loop keeps
 * up (its smoothed delay under `loopDelayMs`): new requests get their first event quickly and memory holds only
 * the runs the CPU can move, while the CPU stays busy.
 */
export class RunLimiter {
  private readonly starts = new Map<string, number[]>();
  private executing = 0;
  private readonly line: Array<() => void> = [];
  private delay = 0;
  private grantedSinceSample = 0;
  private readonly sampler: NodeJS.Timeout;

  constructor(private readonly settings: LimiterSettings) {
    let expected = performance.now() + SAMPLE_MS;
    this.sampler = setInterval(() => {
      const now = performance.now();
      this.delay = this.delay * 0.7 + Math.max(0, now - expected) * 0.3;
      expected = now + SAMPLE_MS;
      this.grantedSinceSample = 0;
      this.admit();
    }, SAMPLE_MS);
    this.sampler.unref();
  }

  /** Counts a start for `user`, or throws 429 with the seconds until the next one is allowed. */
  admitStart(user: string): void {
    const now = Date.now();
    const recent = (this.starts.get(user) ?? []).filter((t) => t > now - MINUTE_MS);
    const limit = this.settings.startsPerMinute;
    if (recent.length >= limit) {
      throw new ProblemError(429, 'rate_limited', `每分钟最多发起 ${limit} 次对话 / at most ${limit} runs per minute`, {
        retry_after: Math.ceil((recent[0] + MINUTE_MS - now) / 1000),
      });
    }
    recent.push(now);
    this.starts.set(user, recent);
    // Users who went quiet leave the map, so it stays as large as the last minute's users.
    if (this.starts.size > 1_000) {
      for (const [name, times] of this.starts) if (times.at(-1)! <= now - MINUTE_MS) this.starts.delete(name);
    }
  }

  /** Resolves with a release function once a slot is free; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.executing -= 1;
      this.admit();
    };
    if (!this.line.length && this.hasRoom()) {
      this.grant();
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        signal.removeEventListener('abort', leave);
        this.grant();
        resolve(release);
      };
      const leave = () => {
        this.line.splice(this.line.indexOf(turn), 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      this.line.push(turn);
    });
  }

  /** Whether a run asking for a slot now would wait in line. */
  get full(): boolean {
    return this.line.length > 0 || !this.hasRoom();
  }

  /** Runs waiting for a slot. */
  get waiting(): number {
    return this.line.length;
  }

  close(): void {
    clearInterval(this.sampler);
  }

  private hasRoom(): boolean {
    if (this.executing === 0) return true;
    if (this.executing >= this.settings.maxConcurrent) return false;
    // An infinite delay limit turns the loop check off: fixed slots.
    if (!Number.isFinite(this.settings.loopDelayMs)) return true;
    return this.delay < this.settings.loopDelayMs && this.grantedSinceSample < GRANTS_PER_SAMPLE;
  }

  private grant(): void {
    this.executing += 1;
    this.grantedSinceSample += 1;
  }

  /** Lets the next run in line start when there is room (after a release, and as the loop catches up). */
  private admit(): void {
    if (this.line.length && this.hasRoom()) this.line.shift()?.();
  }
}
