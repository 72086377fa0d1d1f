// What `npm start` started, stopped in reverse order: on SIGINT or SIGTERM, or when the start fails halfway.

/** The stops of what has started so far, in the order it started. */
export class Stops {
  readonly #stops: Array<() => Promise<void>> = [];

  constructor(private readonly log: (line: string) => void) {}

  add(stop: () => Promise<void>): void {
    this.#stops.push(stop);
  }

  /** Each stop, last started first; one that fails is logged and the others still run. */
  async stopAll(): Promise<void> {
    for (const stop of this.#stops.reverse())
      await stop().catch((err) => this.log(`while stopping: ${err.message}`));
  }
}

/** The first SIGINT or SIGTERM runs `stop`, then exits 0; another signal meanwhile is ignored. */
export function stopOnSignals(stop: () => Promise<void>, log: (line: string) => void): void {
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping…`);
    void stop().then(() => {
      log('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
