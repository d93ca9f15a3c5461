package io.backpressure.core.feedback;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The value formats of rate-limit headers. Each parser returns null for text it cannot read (the
 * caller counts it as ignored); none throws.
 */
final class HeaderValues {
  /** One term of a Go {@code time.Duration} text: a decimal number and a unit. */
  private static final Pattern DURATION_TERM =
      Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)");

  private static final Pattern NUMBER = Pattern.compile("\\d+(?:\\.\\d+)?");

  /** Longest value read; rate-limit values are short, anything longer is not one. */
  private static final int MAX_LENGTH = 64;

  /** Longest duration accepted: a day. Provider windows are a minute to a day. */
  private static final long MAX_DURATION_NANOS = Duration.ofDays(1).toNanos();

  private HeaderValues() {}

  /**
   * A Go duration as OpenAI sends it in {@code x-ratelimit-reset-*}: {@code 1s}, {@code 6m0s},
   * {@code 12ms}, {@code 1h2m3.5s}, {@code 0s}; at most a day.
   */
  static @Nullable Duration goDuration(String text) {
    if (text == null || text.isEmpty() || text.length() > MAX_LENGTH) {
      return null;
    }
    Matcher m = DURATION_TERM.matcher(text);
    int at = 0;
    BigDecimal nanos = BigDecimal.ZERO;
    while (at < text.length()) {
      if (!m.find(at) || m.start() != at) {
        return null;
      }
      long unit =
          switch (m.group(2)) {
            case "ns" -> 1L;
            case "us", "µs", "μs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
          };
      nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)));
      at = m.end();
    }
    if (nanos.compareTo(BigDecimal.valueOf(MAX_DURATION_NANOS)) > 0) {
      return null;
    }
    return Duration.ofNanos(nanos.setScale(0, java.math.RoundingMode.CEILING).longValueExact());
  }

  /** A non-negative decimal count ({@code 60}, {@code 11982}, {@code 0.5}); null otherwise. */
  static @Nullable Double count(String text) {
    if (text == null || text.length() > MAX_LENGTH || !NUMBER.matcher(text).matches()) {
      return null;
    }
    double value = Double.parseDouble(text);
    return Double.isFinite(value) ? value : null;
  }

  /**
   * An RFC 3339 instant as Anthropic sends it in {@code anthropic-ratelimit-*-reset}, as the time
   * from {@code now} until then (zero when it has passed).
   */
  static @Nullable Duration untilInstant(String text, Instant now) {
    if (text == null || text.length() > MAX_LENGTH) {
      return null;
    }
    try {
      return until(
          OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant(), now);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * {@code retry-after}: whole (or decimal) seconds, or an HTTP date (RFC 9110's IMF-fixdate, which
   * {@link DateTimeFormatter#RFC_1123_DATE_TIME} reads), as the time from {@code now}.
   */
  static @Nullable Duration retryAfter(String text, Instant now) {
    if (text == null || text.length() > MAX_LENGTH) {
      return null;
    }
    Double seconds = count(text);
    if (seconds != null) {
      return seconds * 1e9 > MAX_DURATION_NANOS
          ? null
          : Duration.ofNanos(Math.round(seconds * 1e9));
    }
    try {
      return until(
          ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant(), now);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** {@code retry-after-ms}: milliseconds, possibly fractional. */
  static @Nullable Duration retryAfterMillis(String text) {
    Double millis = count(text);
    if (millis == null || millis * 1e6 > MAX_DURATION_NANOS) {
      return null;
    }
    return Duration.ofNanos(Math.round(millis * 1e6));
  }

  /**
   * A protobuf {@code Duration} in its JSON form, as Google's {@code RetryInfo.retryDelay} carries
   * it: decimal seconds with an {@code s} suffix ({@code 7s}, {@code 0.5s}, {@code 38.261s}); at
   * most a day.
   */
  static @Nullable Duration protoDuration(String text) {
    if (text == null || text.length() < 2 || !text.endsWith("s")) {
      return null;
    }
    Double seconds = count(text.substring(0, text.length() - 1));
    if (seconds == null || seconds * 1e9 > MAX_DURATION_NANOS) {
      return null;
    }
    return Duration.ofNanos(Math.round(seconds * 1e9));
  }

  private static @Nullable Duration until(Instant then, Instant now) {
    Duration d = Duration.between(now, then);
    if (d.isNegative()) {
      return Duration.ZERO;
    }
    return d.compareTo(Duration.ofNanos(MAX_DURATION_NANOS)) > 0 ? null : d;
  }
}
