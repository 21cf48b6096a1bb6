// The cross-check: polls the node's kubelet /metrics every period, keeps what it says (up or
// why not, its start time, PLEG, runtime, whether its housekeeping ran), reports a kubelet
// restart (its start time changed) and whether its sync loop would be paused now.
import { type Clock, type Logger, silentLogger, systemClock } from "../core/deps.js";
import { errorMessage } from "../sources/error_message.js";
import { type KubeletFetchResult, KubeletPollError, type KubeletPollErrorReason } from "./fetch.js";
import { type KubeletSignals, readKubeletSignals } from "./signals.js";
import {
  isPaused,
  type PauseVerdict,
  plegUnhealthy,
  RuntimeStatusTracker,
  unknownVerdict,
} from "./sync_loop_state.js";
import {
  isSameProcess,
  KubeletReadyTracker,
  type KubeletTimeToReady,
  timeToReadyErrorSeconds,
  timeToReadySeconds,
} from "./time_to_ready.js";

export interface KubeletWitnessOptions {
  /** One GET of the kubelet's /metrics (fetchKubeletMetrics with its options). */
  fetch: () => Promise<KubeletFetchResult>;
  periodMs: number;
  clock?: Clock;
  logger?: Logger;
  /** The kubelet restarted (its start time changed): the copy is reset from `startTime`. */
  onRestart?: (startTime: number) => Promise<void>;
  /**
   * The kubelet's kubernetes_build_info git_version, at the first successful poll and whenever
   * it changes without a restart (a restart goes to onRestart, after which it is in the view).
   */
  onVersion?: (gitVersion: string | undefined) => Promise<void>;
  /** After every poll, with whether the kubelet's sync loop would now be paused. */
  onVerdict?: (verdict: PauseVerdict) => void;
}

export interface PollRecord {
  at: number;
  durationMs: number;
  bytes: number;
}

export interface WitnessView {
  /** The last poll succeeded. */
  up: boolean;
  polls: number;
  errors: ReadonlyMap<KubeletPollErrorReason, number>;
  lastError: { reason: KubeletPollErrorReason; message: string; at: number } | undefined;
  lastSuccess: PollRecord | undefined;
  /** From the last successful poll. */
  signals: KubeletSignals | undefined;
  /** Restarts seen while watching (start time changes). */
  restarts: number;
  /** Mean PLEG relist duration over the last poll interval, seconds. */
  plegRelistMeanSeconds: number | undefined;
  /**
   * The runtime's pod listing failed since the previous poll of the same kubelet process
   * (list_podsandbox / list_containers errors grew); undefined without two such readings.
   * Housekeeping returns before its series when that listing fails.
   */
  runtimeListFailing: boolean | undefined;
  /** The verdict of the last poll; all unknown when it failed. */
  pause: PauseVerdict;
  /** The kubelet's time to all sources ready in its current process; undefined until seen. */
  timeToReady: KubeletTimeToReady | undefined;
}

export class KubeletWitness {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly runtime = new RuntimeStatusTracker();
  private readonly ready = new KubeletReadyTracker();
  private readonly errors = new Map<KubeletPollErrorReason, number>();
  private lastError: WitnessView["lastError"];
  private lastSuccess: PollRecord | undefined;
  private signals: KubeletSignals | undefined;
  private up = false;
  private polls = 0;
  private restarts = 0;
  private plegRelistMean: number | undefined;
  private runtimeListFailing: boolean | undefined;
  private pause: PauseVerdict = unknownVerdict;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: KubeletWitnessOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
  }

  /** Polls now, then every period after the end of the last poll. */
  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inflight;
  }

  view(): WitnessView {
    return {
      up: this.up,
      polls: this.polls,
      errors: this.errors,
      lastError: this.lastError,
      lastSuccess: this.lastSuccess,
      signals: this.signals,
      restarts: this.restarts,
      plegRelistMeanSeconds: this.plegRelistMean,
      runtimeListFailing: this.runtimeListFailing,
      pause: this.pause,
      timeToReady: this.ready.current(),
    };
  }

  /** One poll; start() runs them on the period. Never rejects. */
  async poll(): Promise<void> {
    const started = this.clock.now();
    const cpu = process.cpuUsage();
    try {
      const result = await this.options.fetch();
      const signals = readKubeletSignals(result.exposition);
      const at = this.clock.now();
      const measured = this.ready.current();
      this.ready.observe(signals, started, at);
      const time = this.ready.current();
      if (time !== undefined && time !== measured)
        this.logger.info("The kubelet's sources are all ready (its housekeeping ran)", {
          timeToReadySeconds: timeToReadySeconds(time),
          measurement: time.measurement,
          errorSeconds: timeToReadyErrorSeconds(time),
        });
      await this.observe(signals, at);
      this.lastSuccess = { at, durationMs: at - started, bytes: result.bytes };
      this.up = true;
      const used = process.cpuUsage(cpu);
      this.logger.debug("Kubelet metrics polled", {
        bytes: result.bytes,
        cpuMs: (used.user + used.system) / 1000,
      });
    } catch (error) {
      this.recordError(error);
      // A read verdict was applied in observe(); a failed poll's is "unknown".
      this.options.onVerdict?.(this.pause);
    } finally {
      this.polls++;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.inflight = this.poll().then(() => {
        this.inflight = undefined;
        this.schedule(this.options.periodMs);
      });
    }, delayMs);
  }

  private async observe(signals: KubeletSignals, at: number): Promise<void> {
    const previous = this.signals;
    const restarted =
      previous?.startTime !== undefined &&
      signals.startTime !== undefined &&
      !isSameProcess(signals.startTime, previous.startTime);
    if (restarted) this.runtime.reset();
    this.runtime.observe(signals.runtimeStatus, at);
    this.plegRelistMean = restarted ? undefined : relistMean(previous, signals);
    this.runtimeListFailing = restarted ? undefined : listFailing(previous, signals);
    this.signals = signals;
    this.pause = { pleg: plegUnhealthy(signals, at), runtime: this.runtime.down(at) };
    if (isPaused(this.pause)) this.logger.debug("Kubelet sync loop paused", { ...this.pause });
    // The verdict is applied before a restart resets the copy: the fresh copy's sources list
    // while onRestart is awaited, and a sync loop left unheld meanwhile would mark them seen
    // although the new kubelet's PLEG has not relisted (a false "ready" that stays).
    this.options.onVerdict?.(this.pause);
    if (!restarted || signals.startTime === undefined) {
      if (previous === undefined || previous.version !== signals.version)
        await this.options.onVersion?.(signals.version);
      return;
    }
    this.logger.info("Kubelet restarted: resetting the copy", {
      previousStart: new Date(previous?.startTime ?? 0).toISOString(),
      start: new Date(signals.startTime).toISOString(),
    });
    // Counted once the copy is reset: a reader that sees the restart also sees the fresh copy,
    // never the old one's readiness (stopping the old copy's sources takes a while). Counted
    // even if the reset failed: the next poll compares with this start and will not see it again.
    try {
      await this.options.onRestart?.(signals.startTime);
    } finally {
      this.restarts++;
    }
  }

  private recordError(error: unknown): void {
    const reason = error instanceof KubeletPollError ? error.reason : "fetch";
    const message = errorMessage(error);
    this.errors.set(reason, (this.errors.get(reason) ?? 0) + 1);
    if (this.up || this.lastError?.reason !== reason) {
      this.logger.warn("Kubelet metrics poll failed", { reason, error: message });
    }
    this.lastError = { reason, message, at: this.clock.now() };
    this.up = false;
    this.ready.failed();
    // Nothing read: the kubelet's loop is not known to be paused.
    this.pause = unknownVerdict;
  }
}

function listFailing(
  previous: KubeletSignals | undefined,
  current: KubeletSignals,
): boolean | undefined {
  const before = previous?.runtimeListErrors;
  const now = current.runtimeListErrors;
  return before === undefined || now === undefined ? undefined : now > before;
}

function relistMean(
  previous: KubeletSignals | undefined,
  current: KubeletSignals,
): number | undefined {
  const before = previous?.plegRelist;
  const now = current.plegRelist;
  if (!before || !now || now.count <= before.count) return undefined;
  return (now.sumSeconds - before.sumSeconds) / (now.count - before.count);
}
