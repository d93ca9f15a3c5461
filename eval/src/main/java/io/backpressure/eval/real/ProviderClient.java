package io.backpressure.eval.real;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One HTTP attempt against the OpenAI-shaped provider: {@code POST /v1/chat/completions} with a
 * prompt of {@code 4 × promptTokens} characters (the mock estimates ⌈characters / 4⌉ tokens) and
 * {@code max_tokens} = the call's completion (the mock, configured to generate the most it can,
 * clamps to it), so the provider counts exactly the workload's tokens. Headers {@code x-tenant},
 * {@code x-priority} and {@code x-call-id} join the provider's records to the calls. Thread-safe.
 */
public final class ProviderClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http;
  private final ExecutorService executor;
  private final URI endpoint;
  private final Ledger ledger;

  /**
   * @param baseUrl the provider's base URL ending in {@code /v1}
   * @param ledger where attempt times are read from (its clock)
   */
  public ProviderClient(String baseUrl, Ledger ledger) {
    this.executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "provider-client");
              t.setDaemon(true);
              return t;
            });
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(executor)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    this.endpoint = URI.create(baseUrl + "/chat/completions");
    this.ledger = ledger;
  }

  /**
   * Sends one attempt of {@code call} and waits for its answer.
   *
   * @throws IOException when the provider cannot be reached or answers something other than 200,
   *     429 or a 5xx (an error unrelated to rate limits, returned as a 500 reply)
   */
  Reply send(CallInput call) throws IOException, InterruptedException {
    String body =
        "{\"model\":\"mock\",\"max_tokens\":"
            + Math.max(1, call.completionTokens())
            + ",\"messages\":[{\"role\":\"user\",\"content\":\""
            + "x".repeat((int) (4 * call.promptTokens()))
            + "\"}]}";
    HttpRequest request =
        HttpRequest.newBuilder(endpoint)
            .timeout(Duration.ofSeconds(60))
            .header("content-type", "application/json")
            .header("x-tenant", call.tenant())
            .header("x-priority", call.priority())
            .header("x-call-id", call.callId())
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    long start = ledger.now();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    long end = ledger.now();
    ProviderSignal signal =
        ProviderSignals.parse(
            response.statusCode(), response.headers().map(), response.body(), Instant.now());
    if (response.statusCode() == 200) {
      return new Reply(true, 0, null, start, end, signal);
    }
    if (response.statusCode() >= 500) {
      return Reply.serverError(start, end, signal);
    }
    if (response.statusCode() != 429) {
      throw new IOException("provider answered " + response.statusCode() + ": " + response.body());
    }
    long retryAfterMs = response.headers().firstValueAsLong("retry-after-ms").orElse(0);
    JsonNode error = JSON.readTree(response.body()).path("error");
    String bound = error.path("type").asText("requests");
    return new Reply(false, retryAfterMs * 1_000_000L, bound, start, end, signal);
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  /**
   * One answer.
   *
   * @param ok a 200
   * @param retryAfterNanos on a 429, the provider's {@code retry-after-ms}
   * @param boundDimension on a 429, {@code requests} or {@code tokens}
   * @param startNanos when the request was sent, in the ledger's time
   * @param endNanos when the answer arrived
   * @param signal what the answer's status, rate-limit headers and body say, for the gate's
   *     feedback
   * @param status 200, 429, or 500 for any 5xx (an error unrelated to rate limits)
   */
  record Reply(
      boolean ok,
      long retryAfterNanos,
      String boundDimension,
      long startNanos,
      long endNanos,
      ProviderSignal signal,
      int status) {

    /** A 200 ({@code ok}) or a 429. */
    Reply(
        boolean ok,
        long retryAfterNanos,
        String boundDimension,
        long startNanos,
        long endNanos,
        ProviderSignal signal) {
      this(ok, retryAfterNanos, boundDimension, startNanos, endNanos, signal, ok ? 200 : 429);
    }

    /** A 5xx, recorded as a 500. */
    static Reply serverError(long startNanos, long endNanos, ProviderSignal signal) {
      return new Reply(false, 0, null, startNanos, endNanos, signal, 500);
    }

    /** Whether the provider answered an error unrelated to rate limits. */
    boolean serverError() {
      return status == 500;
    }
  }
}
