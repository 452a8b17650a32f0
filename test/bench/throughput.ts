/**
 * Section 5: `autocannon` against the local HTTP server, from a process of its own so that the load
 * generator does not share the server's event loop (it does share the machine's cores with the server
 * and DynamoDB Local).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BenchConfig } from './config';

export interface ThroughputRow {
  route: string;
  path: string;
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

const autocannonBin = () => {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('autocannon/package.json')), 'autocannon.js');
};

const autocannon = (url: string, connections: number, seconds: number) =>
  new Promise<AutocannonResult>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [autocannonBin(), '--json', '-c', String(connections), '-d', String(seconds), url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${stderr}`));
      try {
        resolve(JSON.parse(stdout) as AutocannonResult);
      } catch {
        reject(new Error(`autocannon printed no JSON: ${stdout.slice(0, 500)} ${stderr.slice(0, 500)}`));
      }
    });
  });

export const runThroughput = async (
  server: { url: string; getPath: string; filteredListPath: string },
  config: BenchConfig,
  log: (message: string) => void,
): Promise<ThroughputRow[]> => {
  const { connections, seconds } = config.throughput;
  const targets = [
    { route: 'GET /Person/{id}', path: server.getPath },
    { route: 'GET /Person?first_name (filtered list)', path: server.filteredListPath },
  ];
  const rows: ThroughputRow[] = [];
  for (const { route, path } of targets) {
    log(`throughput: ${route}, ${connections} connections for ${seconds} s`);
    const result = await autocannon(`${server.url}${path}`, connections, seconds);
    rows.push({
      route,
      path,
      connections,
      seconds,
      requestsPerSecond: Math.round(result.requests.average),
      requests: result.requests.total,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    });
  }
  return rows;
};
