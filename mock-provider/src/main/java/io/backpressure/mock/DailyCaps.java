package io.backpressure.mock;

import java.time.ZoneId;
import java.util.Objects;

/**
 * A provider's caps per calendar day, beside its per-period caps: at most {@code requests} calls
 * and {@code tokens} tokens between two midnights of {@code zone}, counted exactly (a counter per
 * day, emptied when the next day starts there). OpenAI counts requests and tokens per day, the
 * Gemini API requests per day from midnight Pacific time ({@code America/Los_Angeles}), Bedrock
 * tokens per day.
 *
 * @param requests the calls a day allows, at least 1, or {@code null} for no cap
 * @param tokens the tokens a day allows (each call's token charge, as the per-period tokens cap
 *     counts it), at least 1, or {@code null} for no cap
 * @param zone where a day starts and ends; UTC by default
 */
public record DailyCaps(Long requests, Long tokens, ZoneId zone) {

  /** No cap per day. */
  public static final DailyCaps NONE = new DailyCaps(null, null, ZoneId.of("UTC"));

  /** The largest cap per day accepted, in either dimension. */
  public static final long MAX = 1_000_000_000_000_000L;

  /**
   * @throws IllegalArgumentException naming the field and its allowed range
   */
  public DailyCaps {
    Objects.requireNonNull(zone, "zone");
    check("requests_per_day", requests);
    check("tokens_per_day", tokens);
  }

  /** Caps of {@code requests} and {@code tokens} per day in UTC; either {@code null} for none. */
  public static DailyCaps utc(Long requests, Long tokens) {
    return new DailyCaps(requests, tokens, NONE.zone());
  }

  /** These caps with the days counted in {@code zone}. */
  public DailyCaps in(ZoneId zone) {
    return new DailyCaps(requests, tokens, zone);
  }

  /** Whether any dimension is capped per day. */
  public boolean any() {
    return requests != null || tokens != null;
  }

  private static void check(String field, Long cap) {
    if (cap != null && (cap < 1 || cap > MAX)) {
      throw new IllegalArgumentException(
          field + " must be in the range [1, " + MAX + "], but was: " + cap);
    }
  }
}
