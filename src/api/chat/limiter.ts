import { ProblemError } from '../../shared/index.ts';

export interface LimiterSettings {
  /** Run starts (new messages) per user per minute. */
  startsPerMinute: number;
  /** Runs this process executes at once at most; later ones wait in line. */
  maxConcurrent: number;
  /** Runs one user has executing at once at most in this process; that user's others wait in line. */
  perUserConcurrent: number;
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
 * What a process lets run: a sliding one-minute window of starts per user (429 past it) and executing runs, at most
 * `perUserConcurrent` of them per user, with a line for the rest that a run leaves when its signal aborts. The line
 * is fair across users: one line per user, and a free slot goes to the waiting user with the fewest runs executing
 * (then the one served longest ago), so a user who opened many runs waits behind their own runs, never in front of
 * another user's first. Runs are CPU work on the one event loop that also
 * answers every request, so beyond the first executing run a slot is granted only while the loop keeps up (its
 * smoothed delay under `loopDelayMs`): new requests get their first event quickly and memory holds only the runs the
 * CPU can move, while the CPU stays busy.
 */
export class RunLimiter {
  private readonly starts = new Map<string, number[]>();
  private executing = 0;
  /** Executing runs per user (users with none are not kept). */
  private readonly executingBy = new Map<string, number>();
  /** Each user's waiting runs, first come first. */
  private readonly lines = new Map<string, Array<() => void>>();
  /** When each user with runs was last granted a slot (a count of grants), for taking turns. */
  private readonly lastGrant = new Map<string, number>();
  private grants = 0;
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

  /** Resolves with a release function once `user` may run; rejects with the signal's reason if it aborts first. */
  acquire(user: string, signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.executing -= 1;
      const left = (this.executingBy.get(user) ?? 1) - 1;
      if (left > 0) this.executingBy.set(user, left);
      else {
        this.executingBy.delete(user);
        if (!this.lines.has(user)) this.lastGrant.delete(user);
      }
      this.admit();
    };
    if (!this.wouldWait(user)) {
      this.grant(user);
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const line = this.lines.get(user) ?? [];
      const turn = () => {
        signal.removeEventListener('abort', leave);
        this.grant(user);
        resolve(release);
      };
      const leave = () => {
        line.splice(line.indexOf(turn), 1);
        if (!line.length && this.lines.get(user) === line) this.lines.delete(user);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      line.push(turn);
      this.lines.set(user, line);
    });
  }

  /** Whether a run of `user` asking for a slot now would wait in line. */
  wouldWait(user: string): boolean {
    return this.lines.has(user) || !this.underUserCap(user) || this.nextInLine() !== undefined || !this.hasRoom();
  }

  /** Runs waiting for a slot. */
  get waiting(): number {
    let count = 0;
    for (const line of this.lines.values()) count += line.length;
    return count;
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

  private underUserCap(user: string): boolean {
    return (this.executingBy.get(user) ?? 0) < this.settings.perUserConcurrent;
  }

  /**
   * The user whose turn it is, of those with a waiting run and room under their own cap: the one with the fewest
   * runs executing, then the one served longest ago (never first). A flood's queued runs thus go after every other
   * user's first run, and users with runs waiting take turns.
   */
  private nextInLine(): string | undefined {
    let next: string | undefined;
    let best: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    for (const user of this.lines.keys()) {
      if (!this.underUserCap(user)) continue;
      const rank: [number, number] = [this.executingBy.get(user) ?? 0, this.lastGrant.get(user) ?? 0];
      if (rank[0] < best[0] || (rank[0] === best[0] && rank[1] < best[1])) [next, best] = [user, rank];
    }
    return next;
  }

  private grant(user: string): void {
    this.executing += 1;
    this.grantedSinceSample += 1;
    this.executingBy.set(user, (this.executingBy.get(user) ?? 0) + 1);
    this.grants += 1;
    this.lastGrant.set(user, this.grants);
  }

  /** Lets waiting runs start while there is room (after a release, and as the loop catches up), by turns. */
  private admit(): void {
    for (let user = this.nextInLine(); user !== undefined && this.hasRoom(); user = this.nextInLine()) {
      const line = this.lines.get(user)!;
      const turn = line.shift()!;
      if (!line.length) this.lines.delete(user);
      turn();
    }
  }
}
