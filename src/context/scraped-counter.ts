import type { LabelValues } from 'prom-client';
import { scrapedMetric, type MetricValue, type ScrapedMetric } from './scraped-metric.js';

interface CounterSeries {
  readonly labels: LabelValues<string>;
  value: number;
}

/**
 * A Prometheus counter kept in a map and read at scrape time, so counting needs no prom-client
 * (which the actor loads on the first scrape, not at start). `inc` takes prom-client's
 * `Counter.inc` arguments, and the exposition is the one prom-client's `Counter` prints.
 */
export class ScrapedCounter<L extends string = never> {
  readonly metric: ScrapedMetric;
  readonly #labelNames: readonly L[];
  readonly #series = new Map<string, CounterSeries>();

  /**
   * @param name the metric's name
   * @param help its `# HELP` text
   * @param labelNames its labels; none means one series that reads 0 before any `inc`
   */
  constructor(name: string, help: string, labelNames: readonly L[] = []) {
    this.#labelNames = labelNames;
    if (labelNames.length === 0) this.#series.set('', { labels: {}, value: 0 });
    this.metric = scrapedMetric(name, help, 'counter', () => this.#values());
  }

  /** Adds `value` (1 by default) to the series of `labels`; throws on a value that is not a finite number ≥ 0, as prom-client does. */
  inc(labels?: LabelValues<L> | number, value?: number): void {
    const [seriesLabels, amount] = typeof labels === 'object' ? [labels, value ?? 1] : [{}, labels ?? 1];
    if (!Number.isFinite(amount)) throw new TypeError(`Value is not a valid number: ${amount}`);
    if (amount < 0) throw new Error('It is not possible to decrease a counter');
    const key = seriesKey(this.#labelNames, seriesLabels);
    const series = this.#series.get(key);
    if (series === undefined) this.#series.set(key, { labels: { ...seriesLabels }, value: amount });
    else series.value += amount;
  }

  #values(): MetricValue[] {
    return [...this.#series.values()].map((series) => ({ value: series.value, labels: series.labels }));
  }
}

/**
 * The key of a series: its label values in the order of the metric's label names.
 * @param labelNames the metric's labels
 * @param labels one series' values
 */
export function seriesKey(labelNames: readonly string[], labels: LabelValues<string>): string {
  let key = '';
  for (const name of labelNames) key += `${labels[name] ?? ''}\u0000`;
  return key;
}
