import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../../lib/cli/progress';

/** A stream that keeps what is written; a terminal's when `isTTY`. */
const sink = (isTTY: boolean) => {
  let text = '';
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        text += chunk;
        done();
      },
    }),
    { isTTY, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true },
  );
  return { stream, text: () => text };
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('progress of a run', () => {
  it('counts, resumed, the records done before in done / total but not in the rate and the ETA', async () => {
    const { stream, text } = sink(false);
    const started = performance.now();
    const progress = progressReporter(1_000, { stream, start: 900, intervalMs: 60_000 });
    const created = performance.now();

    await pause(200);
    const updating = performance.now();
    progress.update(910, 'stored 10');
    progress.stop();
    const seconds = (performance.now() - started) / 1000;
    // The reporter's own clock ran at least from its creation to the update (a timer may fire a
    // fraction of a millisecond before its 200 ms by performance.now()).
    const atLeast = (updating - created) / 1000;

    const [, rate, eta] = /import: 910\/1000 \(91%\), ([\d.]+)\/s, ETA (\S+), stored 10/.exec(text()) ?? [];
    // 10 records this run, in about 0.2 s: about 50 a second, not 910 / 0.2 = 4 550.
    expect(Number(rate)).toBeLessThanOrEqual(10 / atLeast + 0.1);
    expect(Number(rate)).toBeLessThan(100);
    expect(Number(rate)).toBeGreaterThanOrEqual(10 / seconds - 0.1);
    // 90 left at that pace: seconds, not 0 as 910 records in 0.2 s would have it.
    expect(eta).toMatch(/^\d+s$/);
    expect(Number.parseInt(eta as string, 10)).toBeGreaterThanOrEqual(1);
  });

  it('on a terminal, shows the cursor and turns line wrap on again when stopped, once', () => {
    const { stream, text } = sink(true);
    const progress = progressReporter(10, { stream, start: 4 });
    progress.update(5, '');

    progress.stop();
    progress.stop();

    expect(text()).toContain('\x1b[?25l');
    expect(text()).toContain('\x1b[?7l');
    const after = text().slice(text().lastIndexOf('\x1b[?7l'));
    expect(after.split('\x1b[?25h')).toHaveLength(2);
    expect(after.split('\x1b[?7h')).toHaveLength(2);
    expect(text()).toContain('4/10');
  });
});
