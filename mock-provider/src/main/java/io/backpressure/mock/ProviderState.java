package io.backpressure.mock;

import io.backpressure.mock.limit.Caps;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.UpstreamLimiter;
import io.backpressure.mock.limit.Verdict;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The mutable heart of one server: the limiters (with their cap schedule and outside traffic), the
 * faults switched on, the random draws, the counters and the per-request log. Thread-safe: every
 * method that reads or changes them holds the instance lock, and the clock is read inside it, so
 * the limiters always see time move forwards.
 */
final class ProviderState {

  /** Why a call is failed before the limiters see it. */
  enum Failure {
    /** None: the limiters decide. */
    NONE,
    /** A 500 (the {@code errors} fault, or the configured error rate). */
    SERVER_ERROR,
    /** The provider's overload answer (the {@code overloaded} fault). */
    OVERLOADED,
    /** A per-day cap is spent ({@link Decision#dayRefusal()} says which). */
    DAY_LIMIT
  }

  /**
   * The outcome of {@link #decide(ParsedCall)}: a failure (no verdict), or the limiters' verdict
   * with the caps in force when it was reached. {@code day} is the calendar day (in the per-day
   * caps' zone) the call was counted in, {@code dayRefusal} why a {@link Failure#DAY_LIMIT} call
   * did not fit in it ({@code null} otherwise).
   */
  record Decision(
      Failure failure,
      Verdict verdict,
      LimitSpec requestsSpec,
      LimitSpec tokensSpec,
      long arrivalNanos,
      long id,
      int completionTokens,
      boolean truncated,
      long chargedTokens,
      long latencyNanos,
      LocalDate day,
      DayWindows.Refusal dayRefusal) {

    /** A call failed before any limiter saw it. */
    static Decision failed(Failure failure, long arrivalNanos) {
      return new Decision(failure, null, null, null, arrivalNanos, 0, 0, false, 0, 0, null, null);
    }
  }

  private final MockProviderConfig config;
  private final UpstreamLimiter limiter;
  private final DayWindows days;
  private final SplittableRandom random;
  private final long originNanos;
  private Faults faults = Faults.NONE;
  private final ArrayList<RequestRecord> records = new ArrayList<>();
  private long recordBytes;
  private long firstSeq;
  private long nextSeq;
  private long admitted;
  private long ok;
  private long rateLimitedRequests;
  private long rateLimitedTokens;
  private long dayLimited;
  private long badRequests;
  private long serverErrors;
  private long inFlight;
  private long promptTokens;
  private long completionTokens;

  ProviderState(MockProviderConfig config, long originNanos) {
    this.config = config;
    this.limiter =
        new UpstreamLimiter(
            config.requests(),
            config.tokens(),
            config.rejectedCount(),
            config.schedule(),
            config.outside());
    this.days = new DayWindows(config.daily());
    this.random = new SplittableRandom(config.seed());
    this.originNanos = originNanos;
  }

  /**
   * Changes the caps from now on.
   *
   * @throws IllegalArgumentException naming the field at fault; nothing changes then
   */
  synchronized Caps setCaps(Caps caps) {
    limiter.setCaps(now(), caps);
    return limiter.caps();
  }

  /**
   * Applies the scheduled cap changes and decides the outside calls due by now. Deciding is lazy
   * (the next call or read does it), so this only spreads the work of a long quiet spell.
   */
  synchronized void catchUp() {
    limiter.advanceTo(now());
  }

  /** The caps now, as rates per second. */
  synchronized Caps caps() {
    limiter.advanceTo(now());
    return limiter.caps();
  }

  /** Changes the caps per day from now on; what the day has used stays counted. */
  synchronized void setDailyCaps(DailyCaps caps) {
    days.setCaps(caps);
  }

  /** The caps per day now. */
  synchronized DailyCaps dailyCaps() {
    return days.caps();
  }

  /** The wall-clock time the per-day caps count by. */
  Instant wallNow() {
    return config.wallClock().instant();
  }

  synchronized void setFaults(Faults faults) {
    this.faults = faults;
  }

  synchronized Faults faults() {
    return faults;
  }

  /** Nanoseconds since the server started. */
  long now() {
    return System.nanoTime() - originNanos;
  }

  /**
   * Fails the call with the overload answer (the {@code overloaded} fault), else draws whether it
   * fails with a 500 (the {@code errors} fault, or the configured error rate), else draws its
   * completion tokens and latency, refuses it when its day has no room for it (one request and its
   * token charge, per {@link DailyCaps}), and else asks the limiters at the current time. A failed
   * or refused call is charged nothing, neither in its day nor in the limiters. An admitted call is
   * counted in its day and as in flight until its 200 is recorded.
   */
  synchronized Decision decide(ParsedCall call) {
    long now = now();
    if (faults.overloaded()) {
      return Decision.failed(Failure.OVERLOADED, now);
    }
    if (faults.errors() || (config.errorRate() > 0 && random.nextDouble() < config.errorRate())) {
      return Decision.failed(Failure.SERVER_ERROR, now);
    }
    int drawn = config.completionTokens().draw(random);
    long latency = Math.round(drawLatencyNanos() * faults.latencyFactor());
    Long maxTokens = call.maxTokens();
    boolean truncated = maxTokens != null && drawn > maxTokens;
    int completion = truncated ? maxTokens.intValue() : drawn;
    long charge =
        switch (config.chargeMode()) {
          case ACTUAL -> call.promptTokens() + completion;
          case MAX_TOKENS -> Math.max(maxTokens == null ? 0 : maxTokens, call.promptTokens());
        };
    Instant wall = wallNow();
    DayWindows.Refusal refusal = days.refusal(wall, charge);
    LocalDate day = days.day(wall);
    if (refusal != null) {
      return new Decision(
          Failure.DAY_LIMIT,
          null,
          null,
          null,
          now,
          0,
          completion,
          truncated,
          charge,
          0,
          day,
          refusal);
    }
    Verdict verdict = limiter.tryAcquire(now, charge);
    long id = 0;
    if (verdict.admitted()) {
      days.debit(charge);
      id = ++admitted;
      inFlight++;
    }
    return new Decision(
        Failure.NONE,
        verdict,
        limiter.requestsSpec(),
        limiter.tokensSpec(),
        now,
        id,
        completion,
        truncated,
        charge,
        latency,
        day,
        null);
  }

  /**
   * Gives back to the tokens limiter the completion tokens a stream cut short was charged at
   * admission but never generated ({@code decision}'s completion less {@code delivered}), so that
   * what the limiter (and the call's day) holds is what the provider served. Only under {@link
   * ChargeMode#ACTUAL}, whose charge is the call's usage; under {@link ChargeMode#MAX_TOKENS} the
   * charge at admission is never corrected, by that mode's rule.
   *
   * @return the call's charge net of the refund
   */
  synchronized long refundUndelivered(Decision decision, long delivered) {
    long undelivered = Math.max(0, decision.completionTokens() - delivered);
    if (config.chargeMode() != ChargeMode.ACTUAL || undelivered == 0) {
      return decision.chargedTokens();
    }
    limiter.refundTokens(now(), decision.arrivalNanos(), undelivered);
    days.refund(wallNow(), decision.day(), undelivered);
    return decision.chargedTokens() - undelivered;
  }

  /** Appends the record of an answered call, stamped with the current time, and counts it. */
  synchronized void record(
      RequestContext context,
      int status,
      String boundDimension,
      long retryAfterNanos,
      long prompt,
      long completion,
      long charged,
      long arrivalNanos) {
    recordBytes += context.estimatedBytes();
    records.add(
        new RequestRecord(
            nextSeq++,
            context.tenant(),
            context.priority(),
            context.callId(),
            status,
            boundDimension,
            retryAfterNanos,
            prompt,
            completion,
            charged,
            arrivalNanos,
            now()));
    if (status == 200) {
      ok++;
      inFlight--;
      promptTokens += prompt;
      completionTokens += completion;
    } else if (boundDimension != null && boundDimension.endsWith(DayWindows.PER_DAY)) {
      dayLimited++;
    } else if (status == 429) {
      if (UpstreamLimiter.TOKENS.equals(boundDimension)) {
        rateLimitedTokens++;
      } else {
        rateLimitedRequests++;
      }
    } else if (status >= 500) {
      serverErrors++;
    } else {
      badRequests++;
    }
    if (records.size() > config.maxRecords() || recordBytes > config.maxRecordBytes()) {
      dropOldest();
    }
  }

  /**
   * Drops the oldest records until at most half of each bound is used, so that the copying this
   * costs is paid once per many appended records.
   */
  private void dropOldest() {
    int drop = 0;
    while (drop < records.size()
        && (records.size() - drop > config.maxRecords() / 2
            || recordBytes > config.maxRecordBytes() / 2)) {
      RequestRecord oldest = records.get(drop++);
      recordBytes -=
          new RequestContext(oldest.tenant(), oldest.priority(), oldest.callId()).estimatedBytes();
    }
    records.subList(0, drop).clear();
    firstSeq += drop;
  }

  /** The kept records with {@code seq >= since}, oldest first; an immutable snapshot. */
  synchronized List<RequestRecord> records(long since) {
    int from = (int) Math.min(records.size(), Math.max(0, since - firstSeq));
    return List.copyOf(records.subList(from, records.size()));
  }

  synchronized Summary summary() {
    long now = now();
    limiter.advanceTo(now);
    return new Summary(
        ok + rateLimitedRequests + rateLimitedTokens + dayLimited + badRequests + serverErrors,
        ok,
        rateLimitedRequests,
        rateLimitedTokens,
        dayLimited,
        badRequests,
        serverErrors,
        inFlight,
        promptTokens,
        completionTokens,
        limiter.outsideArrived(),
        limiter.outsideAdmitted(),
        now);
  }

  private long drawLatencyNanos() {
    long min = config.latencyMinMs() * 1_000_000L;
    long max = config.latencyMaxMs() * 1_000_000L;
    return min == max ? min : random.nextLong(min, max + 1);
  }
}
