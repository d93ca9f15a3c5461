package io.backpressure.core.feedback;

import io.backpressure.core.Dimension;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@link ProviderSignal} from a provider's answer. It understands
 *
 * <ul>
 *   <li>OpenAI's {@code x-ratelimit-limit-requests}, {@code -remaining-}, {@code -reset-} (and the
 *       same for {@code tokens}); resets are Go durations such as {@code 1s}, {@code 6m0s}, {@code
 *       12ms};
 *   <li>Anthropic's {@code anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,
 *       remaining,reset}}; resets are RFC 3339 instants;
 *   <li>{@code retry-after} (seconds or an HTTP date) and {@code retry-after-ms} (which wins when
 *       both are present, being the more precise);
 *   <li>the error body's {@code error.type} (or top-level {@code type}): OpenAI names the exhausted
 *       dimension there ({@code requests}, {@code tokens}). When it names none, a 429's exhausted
 *       dimensions are those whose {@code remaining} is zero.
 * </ul>
 *
 * <p>Header names are matched without regard to case. A value that cannot be read is ignored,
 * counted in {@link ProviderSignal#ignored()} and in {@link #ignoredTotal()}, and logged as a
 * warning at most once a minute; parsing never throws for anything the provider sent. Only the
 * headers above are read, so no other header (an API key echoed back, a cookie) is ever logged.
 * Thread-safe.
 */
public final class ProviderSignals {
  private static final Logger LOG = LoggerFactory.getLogger(ProviderSignals.class);

  /** The body is only read for its error type; a longer one is cut here. */
  private static final int MAX_BODY = 64 * 1024;

  private static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

  private static final List<String> OPENAI_DIMENSIONS =
      List.of(Dimension.REQUESTS, Dimension.TOKENS);

  /** Anthropic's header infix, and the gate's dimension name for it. */
  private static final Map<String, String> ANTHROPIC_DIMENSIONS =
      Map.of(
          "requests",
          Dimension.REQUESTS,
          "tokens",
          Dimension.TOKENS,
          "input-tokens",
          "input_tokens",
          "output-tokens",
          "output_tokens");

  private static final Set<String> DIMENSION_TYPES =
      Set.of(Dimension.REQUESTS, Dimension.TOKENS, "input_tokens", "output_tokens");

  private static final LongAdder IGNORED = new LongAdder();
  private static final AtomicLong NEXT_LOG = new AtomicLong(System.nanoTime());

  private ProviderSignals() {}

  /** Values ignored as unreadable by every parse in this JVM so far. */
  public static long ignoredTotal() {
    return IGNORED.sum();
  }

  /**
   * Parses one answer.
   *
   * @param status the HTTP status (0 when no answer came)
   * @param headers the answer's headers, names in any case; null or empty when there were none
   * @param body the answer's body, or null; only read on a 429
   * @param receivedAt when the answer arrived (wall clock), to turn reset instants and HTTP dates
   *     into durations
   */
  public static ProviderSignal parse(
      int status, Map<String, List<String>> headers, @Nullable String body, Instant receivedAt) {
    Parse p = new Parse(headers, receivedAt);
    Map<String, ProviderSignal.RateLimit> limits = new HashMap<>();
    for (String dim : OPENAI_DIMENSIONS) {
      p.limit(
          limits,
          dim,
          "x-ratelimit-limit-" + dim,
          "x-ratelimit-remaining-" + dim,
          "x-ratelimit-reset-" + dim,
          false);
    }
    ANTHROPIC_DIMENSIONS.forEach(
        (infix, dim) -> {
          String prefix = "anthropic-ratelimit-" + infix;
          p.limit(limits, dim, prefix + "-limit", prefix + "-remaining", prefix + "-reset", true);
        });
    Duration retryAfter = p.value("retry-after-ms", HeaderValues::retryAfterMillis);
    if (retryAfter == null) {
      retryAfter = p.value("retry-after", text -> HeaderValues.retryAfter(text, receivedAt));
    }
    Set<String> exhausted = new HashSet<>();
    if (status == ProviderSignal.TOO_MANY_REQUESTS && body != null && !body.isBlank()) {
      String type = p.errorType(body);
      if (type != null && DIMENSION_TYPES.contains(type)) {
        exhausted.add(type);
      }
    }
    if (status == ProviderSignal.TOO_MANY_REQUESTS && exhausted.isEmpty()) {
      limits.forEach(
          (dim, limit) -> {
            if (limit.remaining() != null && limit.remaining() <= 0) {
              exhausted.add(dim);
            }
          });
    }
    int safeStatus = status < 0 || status > 999 ? 0 : status;
    if (safeStatus != status) {
      p.ignore(":status", Integer.toString(status));
    }
    return new ProviderSignal(safeStatus, exhausted, limits, retryAfter, null, p.ignored, false);
  }

  /** One parse's header view and its count of ignored values. */
  private static final class Parse {
    private final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final Instant receivedAt;
    private int ignored;

    Parse(Map<String, List<String>> raw, Instant receivedAt) {
      this.receivedAt = receivedAt;
      if (raw != null) {
        raw.forEach(
            (name, values) -> {
              if (name != null && values != null && !values.isEmpty() && values.get(0) != null) {
                headers.putIfAbsent(name, values.get(0).trim());
              }
            });
      }
    }

    void limit(
        Map<String, ProviderSignal.RateLimit> out,
        String dim,
        String limitName,
        String remainingName,
        String resetName,
        boolean instant) {
      if (!headers.containsKey(limitName)
          && !headers.containsKey(remainingName)
          && !headers.containsKey(resetName)) {
        return;
      }
      Double limit = value(limitName, HeaderValues::count);
      Double remaining = value(remainingName, HeaderValues::count);
      Duration reset =
          instant
              ? value(resetName, text -> HeaderValues.untilInstant(text, receivedAt))
              : value(resetName, HeaderValues::goDuration);
      if (limit != null || remaining != null || reset != null) {
        out.put(dim, new ProviderSignal.RateLimit(limit, remaining, reset));
      }
    }

    <T> @Nullable T value(String name, java.util.function.Function<String, T> read) {
      String text = headers.get(name);
      if (text == null) {
        return null;
      }
      T value = read.apply(text);
      if (value == null) {
        ignore(name, text);
      }
      return value;
    }

    @Nullable String errorType(String body) {
      String text = body.length() > MAX_BODY ? body.substring(0, MAX_BODY) : body;
      try {
        return ErrorBody.errorType(text);
      } catch (IllegalArgumentException e) {
        ignore("(body)", "not JSON");
        return null;
      }
    }

    void ignore(String name, String text) {
      ignored++;
      IGNORED.increment();
      long now = System.nanoTime();
      long due = NEXT_LOG.get();
      if (now - due >= 0 && NEXT_LOG.compareAndSet(due, now + LOG_INTERVAL_NANOS)) {
        String shown = text.length() > 40 ? text.substring(0, 40) + "…" : text;
        LOG.warn(
            "ignored an unreadable provider value {}: '{}' ({} ignored so far)",
            name,
            shown,
            IGNORED.sum());
      }
    }
  }
}
