/**
 * Counters and histograms whose request-path update is plain arithmetic on numbers kept per
 * label set; prom-client gets them only when /metrics is read. prom-client's own `inc()` and
 * `observe()` check and hash the labels on every call, even through a child made by `labels()`
 * (each request makes four of them: about 4% of a `profiles` call's CPU, profiled on npm start).
 * The label sets here are few and fixed (routes, tools, statuses), so each one's tally is made once.
 */
import client from 'prom-client';

type Labels = Record<string, string>;

/** A counter: `tally(labels).n++` on the request path; added to the prom-client counter when read. */
export class CounterTally<Name extends string> {
  private readonly tallies: { labels: Record<Name, string>; n: number }[] = [];

  constructor(options: { name: string; help: string; labelNames: readonly Name[]; registry: client.Registry }) {
    const tallies = this.tallies;
    new client.Counter({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames,
      registers: [options.registry],
      collect() {
        for (const tally of tallies)
          if (tally.n > 0) {
            this.inc(tally.labels, tally.n);
            tally.n = 0;
          }
      },
    });
  }

  /** The tally of one label set: keep it, and add to its `n`. */
  tally(labels: Record<Name, string>): { n: number } {
    const tally = { labels, n: 0 };
    this.tallies.push(tally);
    return tally;
  }
}

/** One label set's observations: counts per bucket (not cumulative), their sum and count. */
export interface HistogramSeries {
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram registered with prom-client as a metric of its own: it answers `get()` with the
 * values prom-client's Histogram would (the same lines in /metrics), from series observed by
 * `observe()`, a loop over the bounds and three additions.
 */
export class HistogramTally<Name extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly bounds: readonly number[];
  private readonly series: { labels: Labels; values: HistogramSeries }[] = [];

  constructor(options: { name: string; help: string; labelNames: readonly Name[]; buckets: readonly number[]; registry: client.Registry }) {
    this.name = options.name;
    this.help = options.help;
    this.bounds = [...options.buckets].sort((a, b) => a - b);
    // prom-client's registry takes any metric that answers get(); its types list only its own classes.
    options.registry.registerMetric(this as unknown as client.Metric);
  }

  /** The series of one label set: keep it, and `observe()` into it. */
  seriesFor(labels: Record<Name, string>): HistogramSeries {
    const values = { buckets: new Float64Array(this.bounds.length), sum: 0, count: 0 };
    this.series.push({ labels, values });
    return values;
  }

  /** Records one observation in `series`. */
  observe(series: HistogramSeries, value: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++)
      if (value <= bounds[i]!) {
        series.buckets[i]!++;
        break;
      }
    series.sum += value;
    series.count++;
  }

  /** What prom-client's registry reads: cumulative buckets, +Inf, sum and count per series (as its Histogram gives them). */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: object[] }> {
    const values: object[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, values: s } of this.series) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.buckets[i]!;
        values.push({ labels: { le }, sharedLabels: labels, value: acc, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: s.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: labels, value: s.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    for (const { values } of this.series) {
      values.buckets.fill(0);
      values.sum = 0;
      values.count = 0;
    }
  }
}
