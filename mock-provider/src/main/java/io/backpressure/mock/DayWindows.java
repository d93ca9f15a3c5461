package io.backpressure.mock;

import io.backpressure.mock.limit.UpstreamLimiter;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;

/**
 * The counters of the {@link DailyCaps}: what the current day (in the caps' zone) has used. A day's
 * counters start at zero when the first call of that day arrives; a clock that steps back into an
 * earlier day counts on the later one. Not thread-safe: {@link ProviderState} holds its lock around
 * every call.
 */
final class DayWindows {

  /**
   * Why a call does not fit in the day: the dimension ({@link UpstreamLimiter#REQUESTS} or {@link
   * UpstreamLimiter#TOKENS}), the day's cap, what the day has used, what the call asked for, and
   * when the next day starts.
   */
  record Refusal(
      String dimension, long limit, long used, long requested, Instant resetAt, ZoneId zone) {

    /** True for the requests cap, false for the tokens cap. */
    boolean requests() {
      return dimension.equals(UpstreamLimiter.REQUESTS);
    }

    /**
     * The bound dimension the request log records: {@code requests_per_day} or {@code
     * tokens_per_day}.
     */
    String recorded() {
      return dimension + PER_DAY;
    }

    /** Nanoseconds from {@code now} until the next day starts; 0 when it has. */
    long nanosUntilReset(Instant now) {
      return Math.max(0, java.time.Duration.between(now, resetAt).toNanos());
    }
  }

  /** What a day refusal's recorded dimension ends with. */
  static final String PER_DAY = "_per_day";

  private DailyCaps caps;
  private LocalDate day = LocalDate.MIN;
  private long requests;
  private long tokens;

  DayWindows(DailyCaps caps) {
    this.caps = caps;
  }

  DailyCaps caps() {
    return caps;
  }

  /** Changes the caps from now on; what the day has used stays counted. */
  void setCaps(DailyCaps caps) {
    this.caps = caps;
  }

  /**
   * Why a call of one request and {@code tokens} tokens arriving at {@code now} does not fit in its
   * day, or {@code null} when it does. The requests cap is checked first. Changes nothing but the
   * start of a new day.
   */
  Refusal refusal(Instant now, long tokens) {
    roll(now);
    if (caps.requests() != null && requests + 1 > caps.requests()) {
      return new Refusal(
          UpstreamLimiter.REQUESTS, caps.requests(), requests, 1, resetAt(), caps.zone());
    }
    if (caps.tokens() != null && this.tokens + tokens > caps.tokens()) {
      return new Refusal(
          UpstreamLimiter.TOKENS, caps.tokens(), this.tokens, tokens, resetAt(), caps.zone());
    }
    return null;
  }

  /** Counts an admitted call in its day, which {@link #refusal} has just rolled to. */
  void debit(long tokens) {
    requests++;
    this.tokens += tokens;
  }

  /**
   * Gives back {@code tokens} debited on {@code debitedOn}, when that day is still the current one
   * at {@code now}; a day that has ended keeps what it counted.
   */
  void refund(Instant now, LocalDate debitedOn, long tokens) {
    roll(now);
    if (debitedOn.equals(day)) {
      this.tokens = Math.max(0, this.tokens - tokens);
    }
  }

  /** The current day, in the caps' zone, after rolling to {@code now}. */
  LocalDate day(Instant now) {
    roll(now);
    return day;
  }

  private void roll(Instant now) {
    LocalDate today = LocalDate.ofInstant(now, caps.zone());
    if (today.isAfter(day)) {
      day = today;
      requests = 0;
      tokens = 0;
    }
  }

  private Instant resetAt() {
    return day.plusDays(1).atStartOfDay(caps.zone()).toInstant();
  }
}
