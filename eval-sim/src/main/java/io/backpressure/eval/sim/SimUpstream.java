package io.backpressure.eval.sim;

import io.backpressure.core.Dimension;
import io.backpressure.core.Limits;
import io.backpressure.eval.workload.Workload;
import io.backpressure.mock.OpenAiRateLimitHeaders;
import io.backpressure.mock.RateLimitFormat;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.UpstreamLimiter;
import io.backpressure.mock.limit.Verdict;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The simulated provider: the mock provider's own {@link UpstreamLimiter} (so simulation and the
 * HTTP mock enforce identical window semantics) plus the workload's uniform service latency, its
 * drift ({@code upstream.schedule}: at each entry's {@code at_s} the provider starts counting
 * against the new caps, with a fresh window), traffic from outside the gate ({@code
 * upstream.outside}: spread evenly, it takes its rate out of every window, so the workload's calls
 * meet the caps less the outside rates) and errors unrelated to rate limits ({@code
 * upstream.error_rate}: a share of the calls the limiter admitted are answered 500 after the
 * service latency; the provider counted them). Single-threaded.
 *
 * <h2>What it says</h2>
 *
 * Every 200 and 429 carries the rate-limit headers the mock provider would send, written by the
 * mock provider's own {@link OpenAiRateLimitHeaders} from the decision's {@link Verdict}: the limit
 * is the true cap per period (outside traffic included, as a provider counts it); what remains is
 * the limiter's remainder plus, in a fixed window, the outside traffic's share of the part of the
 * window still to come (spread evenly, it has spent {@code outside · elapsed} so far; in a sliding
 * window or a bucket its share is always spent already); resets and {@code retry-after(-ms)} are
 * the limiter's. A 429's body names the exhausted dimension in OpenAI's {@code error.type}. A 500
 * carries no rate-limit headers. As with the HTTP mock, the headers of a 200 describe the moment
 * the call was decided, not the moment its answer arrives.
 *
 * <h2>Caps per day</h2>
 *
 * With {@code upstream.per_day} the provider also counts the calls and tokens of each calendar day
 * of its zone, as the mock provider's {@code DailyCaps} do: the run's instant is {@code start_at}
 * plus the virtual time, a day runs from one midnight to the next ({@link Limits.Period#DAY}), its
 * counters start at zero, and a call is refused before the per-period limiter is asked when one
 * more request, or its tokens, would pass the day's cap (requests checked first). The refusal is
 * OpenAI's per-day 429: {@code error.type} the dimension, a message naming "requests per day (RPD)"
 * or "tokens per day (TPD)", and {@code retry-after(-ms)} until the next midnight; it is charged
 * nothing, in the day or in the limiter, whatever {@code rejected_count} says. A call the limiter
 * admits is counted in its day.
 */
final class SimUpstream {
  private final Workload.Upstream spec;
  private final SplittableRandom latencyRandom;
  private final SplittableRandom errorRandom;
  private final long latencyMinNanos;
  private final long latencySpanNanos;
  private final WindowModel model;
  private final Duration period;
  private UpstreamLimiter limiter;
  private Workload.Caps caps;
  private int nextChange;

  /** The calendar instant at virtual time 0. */
  private final Instant startAt;

  /** The start of the day the day counters hold, or null before the first call. */
  private Instant dayStart;

  /** When that day ends: the next midnight of the zone. */
  private Instant dayEnd;

  private double dayRequests;
  private double dayTokens;

  /**
   * @param startAt the calendar instant at virtual time 0 ({@code start_at})
   * @param latencyRandom the stream of service latencies
   * @param errorRandom the stream that decides which admitted calls get a 500
   */
  SimUpstream(
      Workload.Upstream spec,
      Instant startAt,
      SplittableRandom latencyRandom,
      SplittableRandom errorRandom) {
    this.spec = spec;
    this.startAt = startAt;
    this.latencyRandom = latencyRandom;
    this.errorRandom = errorRandom;
    this.model = WindowModel.parse(spec.window());
    this.period = Duration.ofNanos(Math.round(spec.periodS() * 1e9));
    this.caps = spec.initialCaps();
    this.limiter = limiter(spec, caps);
    this.latencyMinNanos = Math.round(spec.latencyMinMs() * 1e6);
    this.latencySpanNanos = Math.round(spec.latencyMaxMs() * 1e6) - latencyMinNanos;
  }

  /** The limiter for {@code caps}, less the outside traffic. */
  private static UpstreamLimiter limiter(Workload.Upstream spec, Workload.Caps caps) {
    WindowModel model = WindowModel.parse(spec.window());
    Duration period = Duration.ofNanos(Math.round(spec.periodS() * 1e9));
    LimitSpec requests =
        caps.requestsPerS() == null
            ? null
            : new LimitSpec(
                model,
                (caps.requestsPerS() - spec.outsideOf(Dimension.REQUESTS)) * spec.periodS(),
                period);
    LimitSpec tokens =
        caps.tokensPerS() == null
            ? null
            : new LimitSpec(
                model,
                (caps.tokensPerS() - spec.outsideOf(Dimension.TOKENS)) * spec.periodS(),
                period);
    return new UpstreamLimiter(requests, tokens, spec.rejectedCount());
  }

  /**
   * One answer.
   *
   * @param status 200, 429 or 500
   * @param verdict the limiter's decision (a 500 was admitted by it)
   * @param headers the answer's rate-limit headers, names in lower case (none on a 500)
   * @param body on a 429 the error body, else null
   */
  record Answer(int status, Verdict verdict, Map<String, String> headers, String body) {

    /** Whether this is the refusal of a cap per day (charged nothing). */
    boolean dayLimited() {
      return verdict.boundDimension() != null && verdict.boundDimension().endsWith(PER_DAY);
    }
  }

  /** What the bound dimension of a refusal per day ends with, as the mock provider records it. */
  static final String PER_DAY = "_per_day";

  /** A call of {@code tokens} tokens arrives at {@code now}: the provider's answer (and debit). */
  Answer arrive(long now, double tokens) {
    List<Workload.CapChange> schedule = spec.schedule();
    boolean changed = false;
    while (nextChange < schedule.size() && Workload.nanos(schedule.get(nextChange).atS()) <= now) {
      nextChange++;
      changed = true;
    }
    if (changed) {
      caps = spec.capsAt(schedule.get(nextChange - 1).atS());
      limiter = limiter(spec, caps);
    }
    Answer dayRefusal = dayRefusal(now, tokens);
    if (dayRefusal != null) {
      return dayRefusal;
    }
    Verdict verdict = limiter.tryAcquire(now, tokens);
    if (verdict.admitted() && dayStart != null) {
      dayRequests++;
      dayTokens += tokens;
    }
    if (!verdict.admitted()) {
      return new Answer(
          429, verdict, headers(now, verdict), rateLimitedBody(verdict.boundDimension()));
    }
    boolean error = spec.errorRate() > 0 && errorRandom.nextDouble() < spec.errorRate();
    return error
        ? new Answer(500, verdict, Map.of(), null)
        : new Answer(200, verdict, headers(now, verdict), null);
  }

  /**
   * The refusal of a call of {@code tokens} tokens at {@code now} by a cap per day, or null when
   * the day has room for it (or there is no cap per day). Rolls the day counters to {@code now}'s
   * day.
   */
  private Answer dayRefusal(long now, double tokens) {
    Workload.DayCaps perDay = spec.perDay();
    if (!perDay.any()) {
      return null;
    }
    Instant instant = startAt.plusNanos(now);
    if (dayStart == null || !instant.isBefore(dayEnd)) {
      dayStart = Limits.Period.DAY.start(instant, perDay.zone());
      dayEnd = Limits.Period.DAY.end(instant, perDay.zone());
      dayRequests = 0;
      dayTokens = 0;
    }
    String dimension;
    double limit;
    double used;
    double requested;
    if (perDay.requests() != null && dayRequests + 1 > perDay.requests()) {
      dimension = Dimension.REQUESTS;
      limit = perDay.requests();
      used = dayRequests;
      requested = 1;
    } else if (perDay.tokens() != null && dayTokens + tokens > perDay.tokens()) {
      dimension = Dimension.TOKENS;
      limit = perDay.tokens();
      used = dayTokens;
      requested = tokens;
    } else {
      return null;
    }
    long wait = Duration.between(instant, dayEnd).toNanos();
    Verdict verdict = new Verdict(false, dimension + PER_DAY, wait, 0, 0, wait, wait);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("retry-after", Long.toString(RateLimitFormat.ceilSeconds(wait)));
    headers.put("retry-after-ms", Long.toString(RateLimitFormat.ceilMillis(wait)));
    String body =
        "{\"error\":{\"message\":\"Rate limit reached for sim in organization org-sim on "
            + (Dimension.REQUESTS.equals(dimension)
                ? "requests per day (RPD)"
                : "tokens per day (TPD)")
            + ": Limit "
            + Math.round(limit)
            + ", Used "
            + Math.round(used)
            + ", Requested "
            + Math.round(requested)
            + ". Please try again in "
            + RateLimitFormat.duration(wait)
            + ".\",\"type\":\""
            + dimension
            + "\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}";
    return new Answer(429, verdict, headers, body);
  }

  /** A 429's body in OpenAI's shape, naming the exhausted dimension in {@code error.type}. */
  private static String rateLimitedBody(String dimension) {
    return "{\"error\":{\"message\":\"Rate limit reached for "
        + dimension
        + "\",\"type\":\""
        + dimension
        + "\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}";
  }

  /** The rate-limit headers of a decision at {@code now}, as the class comment describes. */
  private Map<String, String> headers(long now, Verdict verdict) {
    double unspent =
        model == WindowModel.FIXED
            ? 1 - (double) Math.floorMod(now, period.toNanos()) / period.toNanos()
            : 0;
    double outsideRequests = spec.outsideOf(Dimension.REQUESTS) * spec.periodS() * unspent;
    double outsideTokens = spec.outsideOf(Dimension.TOKENS) * spec.periodS() * unspent;
    Verdict shown =
        new Verdict(
            verdict.admitted(),
            verdict.boundDimension(),
            verdict.retryAfterNanos(),
            verdict.remainingRequests() + outsideRequests,
            verdict.remainingTokens() + outsideTokens,
            verdict.resetRequestsNanos(),
            verdict.resetTokensNanos());
    return OpenAiRateLimitHeaders.of(
        trueSpec(caps.requestsPerS()), trueSpec(caps.tokensPerS()), shown);
  }

  /** The true cap of a dimension per period, outside traffic included; null when uncapped. */
  private LimitSpec trueSpec(Double ratePerS) {
    return ratePerS == null ? null : new LimitSpec(model, ratePerS * spec.periodS(), period);
  }

  /**
   * The service latency of one answer that was not a 429, sent at {@code nowNanos} into the run:
   * uniform within the workload's latency then ({@code latency_ms}, changed by {@code
   * latency_schedule}).
   */
  long latencyNanos(long nowNanos) {
    long min = latencyMinNanos;
    long span = latencySpanNanos;
    if (!spec.latencySchedule().isEmpty()) {
      double[] bounds = spec.latencyAt(nowNanos / 1e9);
      min = Math.round(bounds[0] * 1e6);
      span = Math.round(bounds[1] * 1e6) - min;
    }
    return min + (span == 0 ? 0 : latencyRandom.nextLong(span + 1));
  }

  boolean rejectedCount() {
    return limiter.rejectedCount();
  }
}
