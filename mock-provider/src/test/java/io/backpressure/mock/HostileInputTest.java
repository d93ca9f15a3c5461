package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.mock.limit.Caps;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Generated bad input at each of the server's JSON boundaries: every one is refused with a 400
 * whose message names what is wrong, nothing changes, and the server keeps serving. The counts per
 * kind of fault are logged as the test's report.
 */
class HostileInputTest {

  private static final Logger LOG = LoggerFactory.getLogger(HostileInputTest.class);
  private static final int PER_KIND = 25;

  /** Values a positive rate may not take: other JSON types, zero, negatives, overflows. */
  private static final String[] NOT_A_RATE = {
    "\"5\"",
    "\"\"",
    "true",
    "false",
    "null",
    "[]",
    "[1]",
    "{}",
    "{\"a\":1}",
    "-1",
    "0",
    "1e400",
    "-1e300",
    "-0.0"
  };

  /** Values {@code model} may not take: anything but a non-blank string. */
  private static final String[] NOT_A_MODEL = {
    "\"\"", "\"  \"", "5", "true", "null", "[]", "[\"m\"]", "{}", "1.5"
  };

  /** Values {@code max_tokens} may not take: non-integers and integers outside [1, 1e6]. */
  private static final String[] NOT_A_TOKEN_LIMIT = {
    "\"5\"", "true", "[]", "{}", "0", "-1", "1.5", "1e400", "99999999999999999999", "1000001"
  };

  private static String anyOf(SplittableRandom random, String... values) {
    return values[random.nextInt(values.length)];
  }

  @Test
  void badAdminBodiesAreRefusedAndChangeNothing() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.perSecond(WindowModel.FIXED, 10))
            .build();
    SplittableRandom random = new SplittableRandom(13);
    Map<String, Function<SplittableRandom, String>> kinds = new TreeMap<>();
    kinds.put("caps wrong type", r -> "{\"requests_per_s\":" + anyOf(r, NOT_A_RATE) + "}");
    kinds.put("caps unknown field", r -> "{\"requests_per_s\":5,\"x" + r.nextInt(1000) + "\":1}");
    kinds.put(
        "caps duplicate key",
        r -> "{\"requests_per_s\":5,\"requests_per_s\":" + (r.nextInt(50) + 1) + "}");
    kinds.put("caps uncapped dimension", r -> "{\"tokens_per_s\":" + (r.nextInt(1000) + 1) + "}");
    kinds.put("caps not an object", r -> anyOf(r, "[]", "5", "\"caps\"", "null", "", "{", "{}"));
    Map<String, Integer> counts = refuseAll(config, "/admin/caps", kinds, random);
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isEqualTo(PER_KIND));

    Map<String, Function<SplittableRandom, String>> faultKinds = new TreeMap<>();
    faultKinds.put(
        "faults errors not a boolean",
        r -> "{\"errors\":" + anyOf(r, "\"true\"", "1", "0", "null", "[]", "\"yes please\"") + "}");
    faultKinds.put(
        "faults factor out of range",
        r -> "{\"latency_factor\":" + anyOf(r, "0", "-1", "1001", "1e9", "\"10\"", "null") + "}");
    counts.putAll(refuseAll(config, "/admin/faults", faultKinds, random));
    LOG.info("hostile admin bodies refused, by kind: {}", counts);
  }

  private static Map<String, Integer> refuseAll(
      MockProviderConfig config,
      String path,
      Map<String, Function<SplittableRandom, String>> kinds,
      SplittableRandom random)
      throws Exception {
    Map<String, Integer> counts = new TreeMap<>();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      Caps caps = provider.caps();
      Faults faults = provider.faults();
      for (Map.Entry<String, Function<SplittableRandom, String>> kind : kinds.entrySet()) {
        for (int i = 0; i < PER_KIND; i++) {
          String body = kind.getValue().apply(random);
          Http.Answer answer = http.post(path, body);
          assertThat(answer.status()).as(kind.getKey() + ": " + body).isEqualTo(400);
          assertThat(answer.body().path("error").path("message").asText()).isNotBlank();
          counts.merge(kind.getKey(), 1, Integer::sum);
        }
      }
      assertThat(provider.caps()).isEqualTo(caps);
      assertThat(provider.faults()).isEqualTo(faults);
      assertThat(http.post("/v1/chat/completions", Http.chat("hi", 1)).status()).isEqualTo(200);
    }
    return counts;
  }

  @Test
  void badCompletionBodiesGet400AndAreNeverAdmitted() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(0, 0)
            .requests(LimitSpec.of(WindowModel.FIXED, 1_000, Duration.ofMinutes(10)))
            .build();
    String messages = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    Map<String, Function<SplittableRandom, String>> kinds = new TreeMap<>();
    kinds.put(
        "model wrong type", r -> "{\"model\":" + anyOf(r, NOT_A_MODEL) + "," + messages + "}");
    kinds.put(
        "messages wrong type",
        r ->
            "{\"model\":\"m\",\"messages\":"
                + anyOf(r, "\"hi\"", "5", "{}", "[]", "[5]", "null")
                + "}");
    kinds.put(
        "max_tokens wrong type or range",
        r ->
            "{\"model\":\"m\","
                + messages
                + ",\"max_tokens\":"
                + anyOf(r, NOT_A_TOKEN_LIMIT)
                + "}");
    kinds.put(
        "stream wrong type",
        r ->
            "{\"model\":\"m\","
                + messages
                + ",\"stream\":"
                + anyOf(r, "\"true\"", "1", "0", "[]", "{}", "\"no\"")
                + "}");
    kinds.put(
        "stream_options misplaced or wrong",
        r ->
            "{\"model\":\"m\","
                + messages
                + ","
                + anyOf(
                    r,
                    "\"stream_options\":{\"include_usage\":true}",
                    "\"stream\":true,\"stream_options\":5",
                    "\"stream\":true,\"stream_options\":{\"include_usage\":\"yes\"}")
                + "}");
    kinds.put(
        "truncated JSON",
        r -> {
          String whole = Http.chat("x".repeat(r.nextInt(40)), r.nextInt(100) + 1);
          return whole.substring(0, r.nextInt(whole.length()));
        });
    kinds.put(
        "random bytes",
        r -> {
          StringBuilder junk = new StringBuilder();
          for (int i = r.nextInt(1, 64); i > 0; i--) {
            junk.append((char) r.nextInt(32, 127));
          }
          return junk.toString();
        });
    SplittableRandom random = new SplittableRandom(14);
    Map<String, Integer> counts = new TreeMap<>();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      for (Map.Entry<String, Function<SplittableRandom, String>> kind : kinds.entrySet()) {
        for (int i = 0; i < PER_KIND; i++) {
          String body = kind.getValue().apply(random);
          Http.Answer answer = http.post("/v1/chat/completions", body);
          assertThat(answer.status()).as(kind.getKey() + ": " + body).isEqualTo(400);
          counts.merge(kind.getKey(), 1, Integer::sum);
        }
      }
      int sent = kinds.size() * PER_KIND;
      assertThat(provider.summary().badRequests()).isEqualTo(sent);
      assertThat(provider.summary().ok()).isZero();
      Http.Answer ok = http.post("/v1/chat/completions", Http.chat("hi", 1));
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.header("x-ratelimit-remaining-requests")).isEqualTo("999");
    }
    LOG.info("hostile completion bodies refused, by kind: {}", counts);
  }
}
