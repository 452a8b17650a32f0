/**
 * Progress of a long run on stderr: a bar on a terminal (done / total, rate, ETA; cli-progress), else
 * one line every 10 seconds, for logs and CI.
 */
import { Presets, SingleBar } from 'cli-progress';

export interface Progress {
  /** `done` records of `total` so far, and a short word on how they ended. */
  update(done: number, detail: string): void;
  stop(): void;
}

const duration = (seconds: number) => {
  if (!Number.isFinite(seconds)) return '?';
  const whole = Math.round(seconds);
  return whole >= 60 ? `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
};

export const progressReporter = (
  total: number,
  {
    label = 'import',
    stream = process.stderr,
    intervalMs = 10_000,
  }: { label?: string; stream?: NodeJS.WriteStream; intervalMs?: number } = {},
): Progress => {
  const started = performance.now();
  const rate = (done: number) => done / Math.max(0.001, (performance.now() - started) / 1000);

  if (stream.isTTY) {
    const bar = new SingleBar(
      {
        stream,
        format: `${label} [{bar}] {value}/{total} | {rate}/s | ETA {eta_formatted} | {detail}`,
        etaBuffer: 200,
        hideCursor: true,
      },
      Presets.shades_classic,
    );
    bar.start(total, 0, { rate: '0.0', detail: '' });
    return {
      update: (done, detail) => bar.update(done, { rate: rate(done).toFixed(1), detail }),
      stop: () => bar.stop(),
    };
  }

  let last = { done: 0, detail: '' };
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
      clearInterval(timer);
      line();
    },
  };
};
