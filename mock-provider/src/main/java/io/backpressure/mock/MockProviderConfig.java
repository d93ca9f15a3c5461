package io.backpressure.mock;

import io.backpressure.mock.limit.CapSchedule;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.OutsideTraffic;
import io.backpressure.mock.limit.UpstreamLimiter;
import java.time.Clock;
import java.util.Objects;

/**
 * Everything a {@link MockProvider} needs, range-checked on construction. Build one with {@link
 * #builder()}; every field has a default.
 *
 * @param host the address to bind; default {@code 127.0.0.1} (loopback only)
 * @param port the TCP port in {@code [0, 65535]}; 0 (default) picks a free one
 * @param requests the requests cap, at least 1 per period, or {@code null} (default) for none
 * @param tokens the tokens cap, or {@code null} (default) for none
 * @param rejectedCount whether 429s are debited against the caps like admitted calls; default off
 * @param schedule cap changes at fixed times since the start; default none
 * @param outside traffic from elsewhere on the same caps, never recorded; default none
 * @param errorRate the share of calls answered 500 at once (charged nothing), in {@code [0, 1]};
 *     default 0
 * @param chargeMode what the tokens limiter charges at admission; default {@link ChargeMode#ACTUAL}
 * @param completionTokens completion tokens generated per call before {@code max_tokens} clamps
 *     them; default fixed 50
 * @param latencyMinMs the least simulated service time of a successful call, in {@code [0, 600000]}
 *     ms; default 50
 * @param latencyMaxMs the most, in {@code [latencyMinMs, 600000]} ms; default 150. Drawn uniformly
 * @param seed the seed of the completion-token and latency draws; default 1
 * @param maxBodyBytes the largest request body accepted, in {@code [1024, 67108864]}; default 1
 *     MiB; a larger one is answered 413
 * @param maxHeaderBytes the largest request line and headers accepted, in {@code [1024, 1048576]};
 *     default 16 KiB; larger ones are answered 431
 * @param idleTimeoutMs how long a connection may stay silent (a client neither sending nor reading)
 *     before it is closed, a request body still incomplete then answered 400, in {@code [100,
 *     3600000]} ms; default 30 000. The simulated latency is not silence the client causes and is
 *     not cut short by it
 * @param maxRecords how many per-request records are kept before the oldest are dropped, in {@code
 *     [1, 10000000]}; default 1 000 000
 * @param maxRecordBytes how much heap the kept records may take (estimated; header values in them
 *     are cut to 200 characters) before the oldest are dropped, in {@code [1048576, 17179869184]};
 *     default 256 MiB
 * @param daily the caps per calendar day, checked before the per-period caps; default {@link
 *     DailyCaps#NONE}
 * @param wallClock the clock whose date the per-day caps count by; default the system's
 */
public record MockProviderConfig(
    String host,
    int port,
    LimitSpec requests,
    LimitSpec tokens,
    boolean rejectedCount,
    CapSchedule schedule,
    OutsideTraffic outside,
    double errorRate,
    ChargeMode chargeMode,
    CompletionTokens completionTokens,
    int latencyMinMs,
    int latencyMaxMs,
    long seed,
    int maxBodyBytes,
    int maxHeaderBytes,
    int idleTimeoutMs,
    int maxRecords,
    long maxRecordBytes,
    DailyCaps daily,
    Clock wallClock) {

  /** The largest simulated latency, in milliseconds (ten minutes). */
  public static final int MAX_LATENCY_MS = 600_000;

  /**
   * @throws IllegalArgumentException naming the field and its allowed range
   */
  public MockProviderConfig {
    Objects.requireNonNull(chargeMode, "chargeMode");
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(outside, "outside");
    Objects.requireNonNull(daily, "daily");
    Objects.requireNonNull(wallClock, "wallClock");
    if (!(errorRate >= 0) || errorRate > 1) {
      throw new IllegalArgumentException(
          "errorRate must be in the range [0, 1], but was: " + errorRate);
    }
    Objects.requireNonNull(completionTokens, "completionTokens");
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank");
    }
    if (requests != null && requests.limitPerPeriod() < 1) {
      throw new IllegalArgumentException(
          "requests must allow at least 1 request per period, but was: "
              + requests.limitPerPeriod()
              + " per "
              + requests.period());
    }
    // The limiter checks that the schedule only changes capped dimensions, at >= 1 request/period.
    new UpstreamLimiter(requests, tokens, rejectedCount, schedule, outside);
    checkRange("port", port, 0, 65_535);
    checkRange("latencyMinMs", latencyMinMs, 0, MAX_LATENCY_MS);
    checkRange("latencyMaxMs", latencyMaxMs, latencyMinMs, MAX_LATENCY_MS);
    checkRange("maxBodyBytes", maxBodyBytes, 1024, 64 * 1024 * 1024);
    checkRange("maxHeaderBytes", maxHeaderBytes, 1024, 1024 * 1024);
    checkRange("idleTimeoutMs", idleTimeoutMs, 100, 3_600_000);
    checkRange("maxRecords", maxRecords, 1, 10_000_000);
    checkRange("maxRecordBytes", maxRecordBytes, 1L << 20, 16L << 30);
  }

  /** A builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    return new Builder()
        .host(host)
        .port(port)
        .requests(requests)
        .tokens(tokens)
        .rejectedCount(rejectedCount)
        .schedule(schedule)
        .outside(outside)
        .errorRate(errorRate)
        .chargeMode(chargeMode)
        .completionTokens(completionTokens)
        .latencyMs(latencyMinMs, latencyMaxMs)
        .seed(seed)
        .maxBodyBytes(maxBodyBytes)
        .maxHeaderBytes(maxHeaderBytes)
        .idleTimeoutMs(idleTimeoutMs)
        .maxRecords(maxRecords)
        .maxRecordBytes(maxRecordBytes)
        .daily(daily)
        .wallClock(wallClock);
  }

  private static void checkRange(String field, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          field + " must be in the range [" + min + ", " + max + "], but was: " + value);
    }
  }

  /** Collects the fields; {@link #build()} checks them. Not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port;
    private LimitSpec requests;
    private LimitSpec tokens;
    private boolean rejectedCount;
    private CapSchedule schedule = CapSchedule.NONE;
    private OutsideTraffic outside = OutsideTraffic.NONE;
    private double errorRate;
    private ChargeMode chargeMode = ChargeMode.ACTUAL;
    private CompletionTokens completionTokens = new CompletionTokens.Fixed(50);
    private int latencyMinMs = 50;
    private int latencyMaxMs = 150;
    private long seed = 1;
    private int maxBodyBytes = 1024 * 1024;
    private int maxHeaderBytes = 16 * 1024;
    private int idleTimeoutMs = 30_000;
    private int maxRecords = 1_000_000;
    private long maxRecordBytes = 256L << 20;
    private DailyCaps daily = DailyCaps.NONE;
    private Clock wallClock = Clock.systemUTC();

    private Builder() {}

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** The requests cap; {@code null} for none. */
    public Builder requests(LimitSpec requests) {
      this.requests = requests;
      return this;
    }

    /** The tokens cap; {@code null} for none. */
    public Builder tokens(LimitSpec tokens) {
      this.tokens = tokens;
      return this;
    }

    public Builder rejectedCount(boolean rejectedCount) {
      this.rejectedCount = rejectedCount;
      return this;
    }

    /** Cap changes at fixed times since the start. */
    public Builder schedule(CapSchedule schedule) {
      this.schedule = schedule;
      return this;
    }

    /** Traffic from elsewhere on the same caps. */
    public Builder outside(OutsideTraffic outside) {
      this.outside = outside;
      return this;
    }

    /** The share of calls answered 500, in {@code [0, 1]}. */
    public Builder errorRate(double errorRate) {
      this.errorRate = errorRate;
      return this;
    }

    public Builder chargeMode(ChargeMode chargeMode) {
      this.chargeMode = chargeMode;
      return this;
    }

    public Builder completionTokens(CompletionTokens completionTokens) {
      this.completionTokens = completionTokens;
      return this;
    }

    /** Uniform simulated latency over {@code [minMs, maxMs]}; equal bounds give a fixed latency. */
    public Builder latencyMs(int minMs, int maxMs) {
      this.latencyMinMs = minMs;
      this.latencyMaxMs = maxMs;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder maxBodyBytes(int maxBodyBytes) {
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    public Builder maxHeaderBytes(int maxHeaderBytes) {
      this.maxHeaderBytes = maxHeaderBytes;
      return this;
    }

    public Builder idleTimeoutMs(int idleTimeoutMs) {
      this.idleTimeoutMs = idleTimeoutMs;
      return this;
    }

    public Builder maxRecords(int maxRecords) {
      this.maxRecords = maxRecords;
      return this;
    }

    public Builder maxRecordBytes(long maxRecordBytes) {
      this.maxRecordBytes = maxRecordBytes;
      return this;
    }

    /** The caps per calendar day. */
    public Builder daily(DailyCaps daily) {
      this.daily = daily;
      return this;
    }

    /** The clock whose date the per-day caps count by (a fixed or stepped one in tests). */
    public Builder wallClock(Clock wallClock) {
      this.wallClock = wallClock;
      return this;
    }

    /**
     * The configuration built from the values set so far and the defaults.
     *
     * @throws IllegalArgumentException naming the first field out of range
     */
    public MockProviderConfig build() {
      return new MockProviderConfig(
          host,
          port,
          requests,
          tokens,
          rejectedCount,
          schedule,
          outside,
          errorRate,
          chargeMode,
          completionTokens,
          latencyMinMs,
          latencyMaxMs,
          seed,
          maxBodyBytes,
          maxHeaderBytes,
          idleTimeoutMs,
          maxRecords,
          maxRecordBytes,
          daily,
          wallClock);
    }
  }
}
