import type { LabelValues } from 'prom-client';
import { seriesKey } from './scraped-counter.js';
import { scrapedMetric, type MetricValue, type ScrapedMetric } from './scraped-metric.js';

/** One series of a histogram: its labels, and what it has counted so far. */
export interface HistogramSeries {
  readonly labels: LabelValues<string>;
  /** Observations per bucket, not cumulative; the last slot is above the largest bound. */
  readonly perBucket: number[];
  sum: number;
  count: number;
}

/**
 * A series of `labels` that has counted nothing yet.
 * @param labels its label values (kept as given)
 * @param buckets the histogram's upper bounds
 */
export function emptyHistogramSeries(labels: LabelValues<string>, buckets: readonly number[]): HistogramSeries {
  return { labels, perBucket: new Array<number>(buckets.length + 1).fill(0), sum: 0, count: 0 };
}

/**
 * Counts `value` in `series`: in the first bucket whose bound it does not exceed, else above them all.
 * @param series the series
 * @param buckets the histogram's upper bounds, ascending
 * @param value the observation
 */
export function countInSeries(series: HistogramSeries, buckets: readonly number[], value: number): void {
  let index = 0;
  while (index < buckets.length && value > buckets[index]!) index += 1;
  series.perBucket[index]! += 1;
  series.sum += value;
  series.count += 1;
}

/**
 * The samples prom-client's `Histogram` prints for these series: cumulative `_bucket` samples
 * (`le` first, then `+Inf`), then `_sum` and `_count`, series by series.
 * @param name the histogram's name
 * @param buckets its upper bounds, ascending
 * @param allSeries its series
 */
export function histogramSamples(
  name: string,
  buckets: readonly number[],
  allSeries: Iterable<HistogramSeries>,
): MetricValue[] {
  const bucket = `${name}_bucket`;
  const values: MetricValue[] = [];
  for (const series of allSeries) {
    let cumulative = 0;
    buckets.forEach((bound, index) => {
      cumulative += series.perBucket[index]!;
      values.push({ metricName: bucket, labels: { le: bound, ...series.labels }, value: cumulative });
    });
    values.push({ metricName: bucket, labels: { le: '+Inf', ...series.labels }, value: series.count });
    values.push({ metricName: `${name}_sum`, labels: series.labels, value: series.sum });
    values.push({ metricName: `${name}_count`, labels: series.labels, value: series.count });
  }
  return values;
}

/**
 * A labelled Prometheus histogram kept in a map and read at scrape time, so observing needs no
 * prom-client (which the actor loads on the first scrape, not at start). `observe(labels,
 * value)` is prom-client's `Histogram.observe`, and the exposition is the one its `Histogram`
 * prints: cumulative `_bucket` samples (`le` first), then `_sum` and `_count`, per series.
 */
export class ScrapedHistogram<L extends string> {
  readonly metric: ScrapedMetric;
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
    this.#labelNames = labelNames;
    this.#buckets = buckets;
    this.metric = scrapedMetric(name, help, 'histogram', () => histogramSamples(name, buckets, this.#series.values()));
  }

  /** Counts `value` in the series of `labels`; throws on a value that is not a finite number, as prom-client does. */
  observe(labels: LabelValues<L>, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const key = seriesKey(this.#labelNames, labels);
    let series = this.#series.get(key);
    if (series === undefined) {
      series = emptyHistogramSeries({ ...labels }, this.#buckets);
      this.#series.set(key, series);
    }
    countInSeries(series, this.#buckets, value);
  }
}
