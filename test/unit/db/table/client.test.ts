import { describe, expect, it } from 'vitest';
import { dynamoClients } from '../../../../lib/db/table/client';

describe('dynamoClients', () => {
  it('builds the document client on the raw one, so the two share one configuration and its connections', () => {
    const { raw, document } = dynamoClients({ endpoint: 'http://127.0.0.1:1', region: 'local' });

    expect(document.config).toBe(raw.config);
    raw.destroy();
  });

  it('keeps undefined values out of the items the document client writes', () => {
    const { raw, document } = dynamoClients({ region: 'local' });

    expect(document.config.translateConfig?.marshallOptions).toMatchObject({ removeUndefinedValues: true });
    raw.destroy();
  });
});
