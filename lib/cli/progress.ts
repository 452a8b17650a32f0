/**
 * Progress of a long run on stderr: a bar on a terminal (done / total, rate, ETA; cli-progress), else
 * one line every 10 seconds, for logs and CI.
 */
import { Presets, SingleBar } from 'cli-progress';

export interface Progress {
  /** `done` records of `total` so far, and a short word on how they ended. */
  update(done: number, detail: string): void;
  /** Ends the bar: its last state drawn, the cursor shown and line wrap on again. Once; then a no-op. */
  stop(): void;
}

const duration = (seconds: number) => {
  if (!Number.isFinite(seconds)) return '?';
  const whole = Math.round(seconds);
  return whole >= 60 ? `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
};

export interface ProgressOptions {
  label?: string;
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  intervalMs?: number;
  /**
   * Records done before this run (a resumed import's lines settled before): counted in done / total,
   * not in the rate and the ETA, which are this run's own.
   */
  start?: number;
}

export const progressReporter = (
  total: number,
  { label = 'import', stream = process.stderr, intervalMs = 10_000, start = 0 }: ProgressOptions = {},
): Progress => {
  const started = performance.now();
  const rate = (done: number) => (done - start) / Math.max(0.001, (performance.now() - started) / 1000);
  let stopped = false;

  if (stream.isTTY) {
    const bar = new SingleBar(
      {
        stream: stream as NodeJS.WriteStream,
        format: `${label} [{bar}] {value}/{total} | {rate}/s | ETA {eta_formatted} | {detail}`,
        // cli-progress's ETA is from the last values it was given, from `start` on: this run's pace.
        etaBuffer: 200,
        hideCursor: true,
      },
      Presets.shades_classic,
    );
    bar.start(total, start, { rate: '0.0', detail: '' });
    return {
      update: (done, detail) => {
        if (!stopped) bar.update(done, { rate: rate(done).toFixed(1), detail });
      },
      stop: () => {
        if (stopped) return;
        stopped = true;
        bar.stop();
        // The bar's last line ends here: what is printed next starts a line of its own.
        stream.write('\n');
      },
    };
  }

  let last = { done: start, detail: '' };
  const line = () => {
    const { done, detail } = last;
    const perSecond = rate(done);
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    stream.write(
      `${label}: ${done}/${total} (${percent}%), ${perSecond.toFixed(1)}/s, ETA ${duration((total - done) / perSecond)}, ${detail}\n`,
    );
  };
  const timer = setInterval(line, intervalMs);
  timer.unref();
  return {
    update: (done, detail) => {
      last = { done, detail };
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      line();
    },
  };
};
