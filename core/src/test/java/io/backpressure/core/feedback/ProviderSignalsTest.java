package io.backpressure.core.feedback;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The parsers against the formats as the providers document them: OpenAI's rate-limit headers (Go
 * durations), Anthropic's (RFC 3339 instants), retry-after in both forms, and error bodies.
 */
class ProviderSignalsTest {
  private static final Instant NOW = Instant.parse("2026-12-01T08:00:00.250Z");

  @Property(tries = 500)
  void openAiHeadersRoundTrip(
      @ForAll @LongRange(min = 0, max = 10_000_000) long limit,
      @ForAll @LongRange(min = 0, max = 10_000_000) long remaining,
      @ForAll("resets") Duration reset,
      @ForAll("cases") int caseSeed) {
    Map<String, List<String>> headers = new HashMap<>();
    headers.put(mixCase("x-ratelimit-limit-tokens", caseSeed), List.of(Long.toString(limit)));
    headers.put(
        mixCase("x-ratelimit-remaining-tokens", caseSeed + 1), List.of(Long.toString(remaining)));
    headers.put(mixCase("x-ratelimit-reset-tokens", caseSeed + 2), List.of(goDuration(reset)));

    ProviderSignal signal = ProviderSignals.parse(200, headers, null, NOW);

    assertThat(signal.ignored()).isZero();
    ProviderSignal.RateLimit tokens = signal.limits().get("tokens");
    assertThat(tokens.limit()).isEqualTo((double) limit);
    assertThat(tokens.remaining()).isEqualTo((double) remaining);
    assertThat(tokens.reset()).isEqualTo(reset);
  }

  @Property(tries = 500)
  void anthropicHeadersRoundTrip(
      @ForAll @LongRange(min = 0, max = 10_000_000) long limit,
      @ForAll @LongRange(min = 0, max = 10_000_000) long remaining,
      @ForAll @LongRange(min = 0, max = 86_400_000) long resetMillis,
      @ForAll("anthropicDimensions") String infix,
      @ForAll("cases") int caseSeed) {
    Instant at = NOW.plusMillis(resetMillis);
    String prefix = "anthropic-ratelimit-" + infix;
    Map<String, List<String>> headers =
        Map.of(
            mixCase(prefix + "-limit", caseSeed), List.of(Long.toString(limit)),
            mixCase(prefix + "-remaining", caseSeed), List.of(Long.toString(remaining)),
            mixCase(prefix + "-reset", caseSeed),
                List.of(DateTimeFormatter.ISO_INSTANT.format(at)));

    ProviderSignal signal = ProviderSignals.parse(200, headers, null, NOW);

    assertThat(signal.ignored()).isZero();
    ProviderSignal.RateLimit parsed = signal.limits().get(infix.replace('-', '_'));
    assertThat(parsed.limit()).isEqualTo((double) limit);
    assertThat(parsed.remaining()).isEqualTo((double) remaining);
    assertThat(parsed.reset()).isEqualTo(Duration.ofMillis(resetMillis));
  }

  @Property(tries = 300)
  void retryAfterRoundTripsInEveryForm(
      @ForAll @IntRange(min = 0, max = 86_399) int seconds,
      @ForAll @IntRange(min = 0, max = 999) int extraMillis,
      @ForAll("forms") int form) {
    Map<String, List<String>> headers =
        switch (form) {
          case 0 -> Map.of("Retry-After", List.of(Integer.toString(seconds)));
          case 1 ->
              Map.of(
                  "retry-after",
                  List.of(
                      DateTimeFormatter.RFC_1123_DATE_TIME.format(
                          NOW.truncatedTo(ChronoUnit.SECONDS)
                              .plusSeconds(seconds)
                              .atOffset(ZoneOffset.UTC))));
          default ->
              Map.of(
                  "retry-after",
                  List.of(Integer.toString(seconds + 1)),
                  "RETRY-AFTER-MS",
                  List.of(Long.toString(seconds * 1000L + extraMillis)));
        };

    ProviderSignal signal = ProviderSignals.parse(429, headers, null, NOW);

    Duration expected =
        switch (form) {
          case 0 -> Duration.ofSeconds(seconds);
          // An HTTP date has whole seconds; NOW is 250 ms past one.
          case 1 -> seconds == 0 ? Duration.ZERO : Duration.ofSeconds(seconds).minusMillis(250);
          default -> Duration.ofMillis(seconds * 1000L + extraMillis);
        };
    assertThat(signal.retryAfter()).isEqualTo(expected);
    assertThat(signal.ignored()).isZero();
  }

  @Property(tries = 1000)
  void garbageIsIgnoredAndCountedNeverThrown(
      @ForAll("headerNames") String name,
      @ForAll("garbage") String value,
      @ForAll("garbage") String body,
      @ForAll @IntRange(min = -5, max = 1200) int status) {
    long before = ProviderSignals.ignoredTotal();

    ProviderSignal signal = ProviderSignals.parse(status, Map.of(name, List.of(value)), body, NOW);

    assertThat(signal.status()).isBetween(0, 999);
    boolean read = !signal.limits().isEmpty() || signal.retryAfter() != null;
    if (name.equals("x-other")) {
      assertThat(read).as("an unknown header is never read").isFalse();
    } else {
      assertThat(read || signal.ignored() >= 1)
          .as("a value is either read or counted as ignored")
          .isTrue();
    }
    assertThat(ProviderSignals.ignoredTotal()).isGreaterThanOrEqualTo(before + signal.ignored());
    signal
        .limits()
        .values()
        .forEach(
            limit -> {
              if (limit.reset() != null) {
                assertThat(limit.reset()).isBetween(Duration.ZERO, Duration.ofDays(1));
              }
            });
  }

  @Example
  void unreadableValuesAreCountedOneEach() {
    Map<String, List<String>> headers =
        Map.of(
            "x-ratelimit-limit-requests", List.of("sixty"),
            "x-ratelimit-remaining-requests", List.of("-3"),
            "x-ratelimit-reset-requests", List.of("6m0"),
            "anthropic-ratelimit-tokens-reset", List.of("tomorrow"),
            "retry-after", List.of("soon"));

    ProviderSignal signal = ProviderSignals.parse(429, headers, "<html>busy</html>", NOW);

    assertThat(signal.ignored()).isEqualTo(6);
    assertThat(signal.limits()).isEmpty();
    assertThat(signal.retryAfter()).isNull();
    assertThat(signal.exhausted()).isEmpty();
  }

  @Example
  void durationsBeyondADayAreNotRateLimitValues() {
    Map<String, List<String>> headers =
        Map.of(
            "retry-after-ms",
            List.of("86400001"),
            "retry-after",
            List.of("86401"),
            "x-ratelimit-reset-tokens",
            List.of("24h0m0.001s"));
    ProviderSignal signal = ProviderSignals.parse(429, headers, null, NOW);
    assertThat(signal.retryAfter()).isNull();
    assertThat(signal.limits()).isEmpty();
    assertThat(signal.ignored()).isEqualTo(3);
  }

  @Example
  void goDurationsAsOpenAiSendsThem() {
    assertThat(HeaderValues.goDuration("1s")).isEqualTo(Duration.ofSeconds(1));
    assertThat(HeaderValues.goDuration("6m0s")).isEqualTo(Duration.ofMinutes(6));
    assertThat(HeaderValues.goDuration("12ms")).isEqualTo(Duration.ofMillis(12));
    assertThat(HeaderValues.goDuration("1h2m3.5s")).isEqualTo(Duration.ofMillis(3_723_500));
    assertThat(HeaderValues.goDuration("17.28s")).isEqualTo(Duration.ofMillis(17_280));
    assertThat(HeaderValues.goDuration("0s")).isEqualTo(Duration.ZERO);
    assertThat(HeaderValues.goDuration("1.5µs")).isEqualTo(Duration.ofNanos(1_500));
    assertThat(HeaderValues.goDuration("")).isNull();
    assertThat(HeaderValues.goDuration("5")).isNull();
    assertThat(HeaderValues.goDuration("-1s")).isNull();
    assertThat(HeaderValues.goDuration("1s ")).isNull();
    assertThat(HeaderValues.goDuration("25h")).isNull();
  }

  @Example
  void openAi429NamesItsDimensionInTheErrorType() {
    String body =
        """
        {"error":{"message":"Rate limit reached for tokens","type":"tokens","param":null,
        "code":"rate_limit_exceeded"}}""";
    Map<String, List<String>> headers =
        Map.of(
            "x-ratelimit-remaining-requests", List.of("0"),
            "x-ratelimit-remaining-tokens", List.of("12"),
            "retry-after-ms", List.of("850"));

    ProviderSignal signal = ProviderSignals.parse(429, headers, body, NOW);

    assertThat(signal.rateLimited()).isTrue();
    assertThat(signal.exhausted()).containsExactly("tokens");
    assertThat(signal.retryAfter()).isEqualTo(Duration.ofMillis(850));
  }

  @Example
  void anthropic429WithoutADimensionTypeFallsBackToTheZeroRemaining() {
    String body =
        """
        {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has \
        exceeded your per-minute rate limit"}}""";
    Map<String, List<String>> headers =
        Map.of(
            "anthropic-ratelimit-requests-remaining", List.of("40"),
            "anthropic-ratelimit-input-tokens-remaining", List.of("0"),
            "retry-after", List.of("2"));

    ProviderSignal signal = ProviderSignals.parse(429, headers, body, NOW);

    assertThat(signal.exhausted()).containsExactly("input_tokens");
    assertThat(signal.retryAfter()).isEqualTo(Duration.ofSeconds(2));
    assertThat(signal.ignored()).isZero();
  }

  @Example
  void aSuccessIsNotAnErrorAndAFiveHundredIs() {
    assertThat(ProviderSignals.parse(200, Map.of(), null, NOW).providerError()).isFalse();
    assertThat(ProviderSignals.parse(503, null, "oops", NOW).providerError()).isTrue();
    assertThat(ProviderSignals.parse(0, null, null, NOW).providerError()).isTrue();
    assertThat(ProviderSignals.parse(503, null, "oops", NOW).ignored()).isZero();
  }

  /** Go's {@code time.Duration.String} for whole milliseconds and above, as OpenAI sends it. */
  static String goDuration(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    if (ms < 1_000) {
      return ms + "ms";
    }
    long hours = ms / 3_600_000;
    long minutes = ms / 60_000 % 60;
    String seconds =
        java.math.BigDecimal.valueOf(ms % 60_000, 3).stripTrailingZeros().toPlainString();
    if (hours > 0) {
      return hours + "h" + minutes + "m" + seconds + "s";
    }
    return minutes > 0 ? minutes + "m" + seconds + "s" : seconds + "s";
  }

  private static String mixCase(String name, int seed) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      out.append(((seed >> (i % 31)) & 1) == 1 ? Character.toUpperCase(c) : c);
    }
    return out.toString();
  }

  @Provide
  Arbitrary<Duration> resets() {
    return Arbitraries.longs().between(0, 86_400_000).map(Duration::ofMillis);
  }

  @Provide
  Arbitrary<Integer> cases() {
    return Arbitraries.integers();
  }

  @Provide
  Arbitrary<Integer> forms() {
    return Arbitraries.integers().between(0, 2);
  }

  @Provide
  Arbitrary<String> anthropicDimensions() {
    return Arbitraries.of("requests", "tokens", "input-tokens", "output-tokens");
  }

  @Provide
  Arbitrary<String> headerNames() {
    return Arbitraries.of(
        "x-ratelimit-limit-requests",
        "x-ratelimit-remaining-tokens",
        "x-ratelimit-reset-tokens",
        "X-RateLimit-Reset-Requests",
        "anthropic-ratelimit-tokens-reset",
        "anthropic-ratelimit-output-tokens-limit",
        "retry-after",
        "retry-after-ms",
        "x-other");
  }

  @Provide
  Arbitrary<String> garbage() {
    Arbitrary<String> any = Arbitraries.strings().ofMaxLength(80);
    Arbitrary<String> near =
        Combinators.combine(
                Arbitraries.of(
                    "1",
                    "6m",
                    "0.5",
                    "-",
                    "1e9",
                    "9999999999999999999h",
                    "2026-13-01T00:00:00Z",
                    "{\"error\":",
                    "[]",
                    "null",
                    "{\"type\":7}",
                    "Tue, 01 Dec 2026 08:00:00 GMT",
                    "µs",
                    "."),
                Arbitraries.strings().withChars("0123456789.smhµ:-TZ ").ofMaxLength(12))
            .as((a, b) -> a + b);
    return Arbitraries.oneOf(any, near).map(s -> s.toLowerCase(Locale.ROOT).isEmpty() ? " " : s);
  }
}
