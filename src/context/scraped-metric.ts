import type { LabelValues } from 'prom-client';

/** One sample of a metric at scrape time, in the shape prom-client's registry prints. */
export interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<LabelValues<string>>;
  readonly metricName?: string;
}

/** A metric whose samples are read only when `/metrics` is scraped: what prom-client's `Registry.registerMetric` takes. */
export interface ScrapedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{
    name: string;
    help: string;
    type: 'counter' | 'histogram';
    aggregator: 'sum';
    values: MetricValue[];
  }>;
}

/**
 * A metric prom-client's registry reads at scrape time from `values`.
 * @param name the metric's name
 * @param help its `# HELP` text
 * @param type `counter` or `histogram`
 * @param values its samples now
 */
export function scrapedMetric(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => MetricValue[],
): ScrapedMetric {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
  };
}
