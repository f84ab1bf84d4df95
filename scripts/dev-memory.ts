// task dev gives a burst's memory back once the host is idle. Under load V8 keeps the garbage of the burst
// as headroom (its memory reducer collects it only by degrees) and glibc keeps the freed blocks of its
// arenas; neither goes back to the system by itself for many seconds, if at all. Half a second after the
// last request ended, and only when the process grew since it last did so, this runs a full collection (V8's
// `gc`, exposed by the dev task's --expose-gc, in its low-memory flavour) and then malloc_trim(0), which hands every free page of
// glibc's arenas back. Requests that arrive meanwhile simply wait for it (a collection of the dev host's
// heap takes tens of milliseconds). Elsewhere (no `gc`, no glibc) it does what it can, or nothing.

export interface IdleReclaimer {
  /** A request began. */
  enter(): void;
  /** A request ended (its handler returned). */
  leave(): void;
  /** How often it reclaimed (for tests). */
  readonly reclaims: number;
  stop(): void;
}

export interface ReclaimerOptions {
  /** Quiet time after the last request before reclaiming (ms). */
  idleMs?: number;
  /** Growth of the resident size since the last reclaim below which nothing is done (bytes). */
  minGrowth?: number;
  /** The collection to run; the exposed `gc` by default. */
  collect?: () => void;
  /** Gives the allocator's free pages back; malloc_trim(0) where glibc is found. */
  trim?: () => void;
  /** The process's resident size (bytes). */
  rss?: () => number;
}

/** malloc_trim(0) from glibc, or undefined where it is not there (macOS, musl, no FFI permission). */
export function glibcTrim(): (() => void) | undefined {
  if (Deno.build.os !== "linux") return undefined;
  try {
    const lib = Deno.dlopen("libc.so.6", { malloc_trim: { parameters: ["usize"], result: "i32" } });
    return () => void lib.symbols.malloc_trim(0n);
  } catch {
    return undefined;
  }
}

export function idleReclaimer(options: ReclaimerOptions = {}): IdleReclaimer {
  const idleMs = options.idleMs ?? 500;
  const minGrowth = options.minGrowth ?? 8 * 1024 * 1024;
  const exposed = (globalThis as { gc?: (options?: Record<string, string>) => void }).gc;
  // "last-resort" is V8's collection for low memory: it also hands the freed pages back at once, where a
  // plain gc() leaves them pooled (measured: 175 MB resident after gc(), 43 MB after this)
  const collect = options.collect ?? (exposed && (() => exposed({ type: "major", execution: "sync", flavor: "last-resort" })));
  const trim = options.trim ?? glibcTrim();
  const rss = options.rss ?? (() => Deno.memoryUsage().rss);
  let inFlight = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = 0; // the resident size right after the last reclaim (none yet: the first idle reclaims)
  let reclaims = 0;

  const reclaim = () => {
    timer = undefined;
    if (inFlight > 0 || rss() - settled < minGrowth) return;
    collect?.();
    trim?.();
    reclaims++;
    settled = rss();
  };

  return {
    enter() {
      inFlight++;
      if (timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
      }
    },
    leave() {
      inFlight = Math.max(0, inFlight - 1);
      if (inFlight === 0 && (collect || trim)) {
        if (timer !== undefined) clearTimeout(timer);
        const next = setTimeout(reclaim, idleMs);
        Deno.unrefTimer(next); // a pending reclaim never keeps the process alive
        timer = next;
      }
    },
    get reclaims() {
      return reclaims;
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
