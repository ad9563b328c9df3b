import { countInSeries, emptyHistogramSeries, histogramSamples, type HistogramSeries } from './scraped-histogram.js';
import { scrapedMetric, type MetricValue, type ScrapedMetric } from './scraped-metric.js';

/** Request duration buckets in seconds (the default of common Prometheus HTTP middleware). */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The duration histogram's name; `http_requests_total` counts its series' observations. */
const DURATION_HISTOGRAM = 'http_request_duration_seconds';

/**
 * `http_requests_total` and `http_request_duration_seconds` by method, route template and
 * status. A request only bumps numbers in a map; the Prometheus series are built when
 * `/metrics` is scraped. (prom-client's labelled metrics hash their labels on every request,
 * which cost more than bare Hono's whole `/health` answer.)
 */
export class HttpMetrics {
  /** Series by route, then method, then status: constant strings and numbers as keys, no key built per request. */
  readonly #series = new Map<string, Map<string, Map<number, HistogramSeries>>>();
  readonly #buckets: readonly number[];
  /** The two metrics, for the registry the actor builds on the first scrape. */
  readonly metrics: readonly ScrapedMetric[];

  constructor(buckets: readonly number[] = HTTP_DURATION_BUCKETS) {
    this.#buckets = buckets;
    this.metrics = [
      scrapedMetric('http_requests_total', 'Total number of HTTP requests', 'counter', () => this.#counterValues()),
      scrapedMetric(DURATION_HISTOGRAM, 'Duration of HTTP requests in seconds', 'histogram', () =>
        histogramSamples(DURATION_HISTOGRAM, this.#buckets, this.#allSeries()),
      ),
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
      series = emptyHistogramSeries(
        { method, route, status: String(status), ok: String(status >= 200 && status < 300) },
        this.#buckets,
      );
      byStatus.set(status, series);
    }
    countInSeries(series, this.#buckets, seconds);
  }

  *#allSeries(): Generator<HistogramSeries> {
    for (const byMethod of this.#series.values()) for (const byStatus of byMethod.values()) yield* byStatus.values();
  }

  #counterValues(): MetricValue[] {
    return [...this.#allSeries()].map((series) => ({ value: series.count, labels: series.labels }));
  }
}
