/** lib/metrics.ts: catalogue units, the `field` dimension kept to its metric, one line per invocation. */
import { describe, expect, it, vi } from 'vitest';
import { METRICS } from '../../lib/api/metrics';
import { batchHandler } from '../../lib/batch-handler';
import { addDimensionedMetric, addMetric } from '../../lib/metrics';
import { lambdaContext } from '../support/events';
import { metricsReader } from '../support/metrics';

vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  // As in Lambda: Powertools writes ColdStart only where this says the container is new on demand.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE = 'on-demand';
});

const metricsWrittenBy = metricsReader();

describe('the container’s metrics', () => {
  // First: a container's first invocation is the one a ColdStart metric would come with.
  it('write no ColdStart on a container’s first invocation: only the catalogue’s metrics', async () => {
    const handler = batchHandler(async () => addMetric('PersonsCreated'));
    const points = await metricsWrittenBy(() => handler({ Records: [] }, lambdaContext()));
    expect(points.map(({ name }) => name)).toEqual(['PersonsCreated']);
  });

  it('keep the field dimension on UniquenessConflicts: the invocation’s other metrics carry only service', async () => {
    const handler = batchHandler(async () => {
      addMetric('StorageRetries');
      addDimensionedMetric('UniquenessConflicts', 'email');
      addMetric('StorageRetries');
    });
    const points = await metricsWrittenBy(() => handler({ Records: [] }, lambdaContext()));
    expect(points.map(({ name, unit, values, dimensions }) => ({ name, unit, values, dimensions }))).toEqual([
      {
        name: 'UniquenessConflicts',
        unit: METRICS.UniquenessConflicts.unit,
        values: [1],
        dimensions: { service: 'person-service', field: 'email' },
      },
      {
        name: 'StorageRetries',
        unit: METRICS.StorageRetries.unit,
        values: [1, 1],
        dimensions: { service: 'person-service' },
      },
    ]);
  });

  it('write nothing for an invocation that counted nothing, and do not fail it', async () => {
    const handler = batchHandler(async () => 'answered');
    let answer: unknown;
    const points = await metricsWrittenBy(async () => {
      answer = await handler({ Records: [] }, lambdaContext());
    });
    expect(answer).toBe('answered');
    expect(points).toEqual([]);
  });

  it('write what an invocation counted before it threw', async () => {
    const handler = batchHandler(async () => {
      addMetric('FeedLag', 120);
      throw new Error('storage failed');
    });
    const points = await metricsWrittenBy(() =>
      handler({ Records: [] }, lambdaContext()).catch(() => undefined),
    );
    expect(points.map(({ name, unit, values }) => ({ name, unit, values }))).toEqual([
      { name: 'FeedLag', unit: 'Milliseconds', values: [120] },
    ]);
  });
});
