import type { LabelValues } from 'prom-client';
import { seriesKey } from './scraped-counter.js';
import { scrapedMetric, type MetricValue, type ScrapedMetric } from './scraped-metric.js';

interface HistogramSeries {
  readonly labels: LabelValues<string>;
  /** Observations per bucket, not cumulative; the last slot is above the largest bound. */
  readonly perBucket: number[];
  sum: number;
  count: number;
}

/**
 * A labelled Prometheus histogram kept in a map and read at scrape time, so observing needs no
 * prom-client (which the actor loads on the first scrape, not at start). `observe(labels,
 * value)` is prom-client's `Histogram.observe`, and the exposition is the one its `Histogram`
 * prints: cumulative `_bucket` samples (`le` first), then `_sum` and `_count`, per series.
 */
export class ScrapedHistogram<L extends string> {
  readonly metric: ScrapedMetric;
  readonly #name: string;
  readonly #labelNames: readonly L[];
  readonly #buckets: readonly number[];
  readonly #series = new Map<string, HistogramSeries>();

  /**
   * @param name the metric's name
   * @param help its `# HELP` text
   * @param labelNames its labels
   * @param buckets the upper bounds, ascending
   */
  constructor(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]) {
    this.#name = name;
    this.#labelNames = labelNames;
    this.#buckets = buckets;
    this.metric = scrapedMetric(name, help, 'histogram', () => this.#values());
  }

  /** Counts `value` in the series of `labels`; throws on a value that is not a finite number, as prom-client does. */
  observe(labels: LabelValues<L>, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const key = seriesKey(this.#labelNames, labels);
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels: { ...labels }, perBucket: new Array<number>(this.#buckets.length + 1).fill(0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    let index = 0;
    while (index < this.#buckets.length && value > this.#buckets[index]!) index += 1;
    series.perBucket[index]! += 1;
    series.sum += value;
    series.count += 1;
  }

  #values(): MetricValue[] {
    const bucket = `${this.#name}_bucket`;
    const values: MetricValue[] = [];
    for (const series of this.#series.values()) {
      let cumulative = 0;
      this.#buckets.forEach((bound, index) => {
        cumulative += series.perBucket[index]!;
        values.push({ metricName: bucket, labels: { le: bound, ...series.labels }, value: cumulative });
      });
      values.push({ metricName: bucket, labels: { le: '+Inf', ...series.labels }, value: series.count });
      values.push({ metricName: `${this.#name}_sum`, labels: series.labels, value: series.sum });
      values.push({ metricName: `${this.#name}_count`, labels: series.labels, value: series.count });
    }
    return values;
  }
}
