import { scrapedMetric, type MetricValue, type ScrapedMetric } from './scraped-metric.js';

/** Request duration buckets in seconds (the default of common Prometheus HTTP middleware). */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

interface Series {
  readonly labels: { method: string; route: string; status: string; ok: string };
  /** Observations per bucket, not cumulative; the last slot is above the largest bound. */
  readonly perBucket: number[];
  sum: number;
  count: number;
}

/**
 * `http_requests_total` and `http_request_duration_seconds` by method, route template and
 * status. A request only bumps numbers in a map; the Prometheus series are built when
 * `/metrics` is scraped. (prom-client's labelled metrics hash their labels on every request,
 * which cost more than bare Hono's whole `/health` answer.)
 */
export class HttpMetrics {
  /** Series by route, then method, then status: constant strings and numbers as keys, no key built per request. */
  readonly #series = new Map<string, Map<string, Map<number, Series>>>();
  readonly #buckets: readonly number[];
  /** The two metrics, for the registry the actor builds on the first scrape. */
  readonly metrics: readonly ScrapedMetric[];

  constructor(buckets: readonly number[] = HTTP_DURATION_BUCKETS) {
    this.#buckets = buckets;
    this.metrics = [
      scrapedMetric('http_requests_total', 'Total number of HTTP requests', 'counter', () => this.#counterValues()),
      scrapedMetric('http_request_duration_seconds', 'Duration of HTTP requests in seconds', 'histogram', () => this.#histogramValues()),
    ];
  }

  /** Records one answered request, by its route template (never the raw path). */
  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.#series.get(route);
    if (byMethod === undefined) this.#series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = { labels: { method, route, status: String(status), ok: String(status >= 200 && status < 300) }, perBucket: new Array<number>(this.#buckets.length + 1).fill(0), sum: 0, count: 0 };
      byStatus.set(status, series);
    }
    let index = 0;
    while (index < this.#buckets.length && seconds > this.#buckets[index]!) index += 1;
    series.perBucket[index]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  *#allSeries(): Generator<Series> {
    for (const byMethod of this.#series.values()) for (const byStatus of byMethod.values()) yield* byStatus.values();
  }

  #counterValues(): MetricValue[] {
    return [...this.#allSeries()].map((series) => ({ value: series.count, labels: series.labels }));
  }

  #histogramValues(): MetricValue[] {
    const values: MetricValue[] = [];
    for (const series of this.#allSeries()) {
      let cumulative = 0;
      this.#buckets.forEach((bound, index) => {
        cumulative += series.perBucket[index]!;
        values.push({ metricName: 'http_request_duration_seconds_bucket', labels: { le: bound, ...series.labels }, value: cumulative });
      });
      values.push({ metricName: 'http_request_duration_seconds_bucket', labels: { le: '+Inf', ...series.labels }, value: series.count });
      values.push({ metricName: 'http_request_duration_seconds_sum', labels: series.labels, value: series.sum });
      values.push({ metricName: 'http_request_duration_seconds_count', labels: series.labels, value: series.count });
    }
    return values;
  }
}
