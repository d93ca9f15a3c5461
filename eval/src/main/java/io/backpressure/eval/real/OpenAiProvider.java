package io.backpressure.eval.real;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.RequestOptions;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import com.openai.errors.InternalServerException;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.ActivityAdmitter;
import io.backpressure.client.CostModel;
import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.core.Dimension;
import io.backpressure.openai.GatedOpenAI;
import io.backpressure.temporal.ActivityGate;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code bp} configuration's provider calls, made the way the openai module's README shows:
 * openai-java's {@link OpenAIClient} built by {@link GatedOpenAI}, so each call is admitted by the
 * gated HTTP client before it is sent and released with the {@code usage} of its answer, every
 * answer's status and rate-limit headers (200s and 429s) go to the gate's provider feedback ({@link
 * ProviderFeedback#toGate}, with the call's grant), and the SDK's own retries are off. Admission
 * goes through {@link ActivityAdmitter} to the worker's {@link ActivityGate}: a deferral ends the
 * activity with the same {@code BackpressureDeferred} failure {@code ActivityGate.call} raises,
 * thrown out of {@link #send}.
 *
 * <p>The request is the one {@link ProviderClient} sends (model {@code mock}, a prompt of {@code 4
 * × promptTokens} characters, {@code max_completion_tokens} = the call's completion, the {@code
 * x-tenant}, {@code x-priority} and {@code x-call-id} headers), so the provider counts exactly the
 * workload's tokens. The constructor first warms the SDK up ({@link ClientWarmUp}). Thread-safe:
 * one instance serves all slots of a worker; each call is made on its activity's thread.
 */
public final class OpenAiProvider implements AutoCloseable {
  private final OpenAIClient client;
  private final SendTimes transport;
  private final Ledger ledger;

  /**
   * @param baseUrl the provider's base URL ending in {@code /v1}
   * @param activityGate the worker's activity gate, around {@code deadlines}
   * @param deadlines the gate the client admits at
   * @param admissions the timed gate inside {@code deadlines}, whose admission instants are
   *     recorded with each send ({@link Ledger#sent}), or null to record none
   * @param requests whether the gate meters requests
   * @param tokens whether the gate meters tokens
   * @param ledger whose clock times each attempt
   */
  public OpenAiProvider(
      String baseUrl,
      ActivityGate activityGate,
      DeadlineGate deadlines,
      TimedGate admissions,
      boolean requests,
      boolean tokens,
      Ledger ledger) {
    this.ledger = ledger;
    CostModel costModel = costModel(requests, tokens);
    ClientWarmUp.run(costModel);
    this.transport =
        new SendTimes(
            OkHttpClient.builder().timeout(Duration.ofSeconds(60)).build(), ledger, admissions);
    this.client =
        GatedOpenAI.builder()
            .gate(deadlines)
            .admitter(ActivityAdmitter.create(gate -> activityGate))
            .costModel(costModel)
            .feedback(ProviderFeedback.toGate(deadlines))
            .transport(transport)
            .clientOptions(
                options -> options.baseUrl(baseUrl).apiKey("mock").timeout(Duration.ofSeconds(60)))
            .build();
  }

  /**
   * Admits and sends one attempt of {@code call}; returns the provider's 200, 429 or 5xx (as a 500
   * reply; the gated client has released it as one request and no tokens).
   *
   * @throws io.temporal.failure.ApplicationFailure when the gate defers, expires or rejects the
   *     call (nothing was sent)
   * @throws com.openai.errors.OpenAIException when the provider answers something else or cannot be
   *     reached
   */
  ProviderClient.Reply send(CallInput call) {
    ChatCompletionCreateParams params = params(call);
    try (GateContext.Scope scope = GateContext.of(call.tenant(), call.priority()).open()) {
      client.chat().completions().create(params);
      return new ProviderClient.Reply(true, 0, null, transport.lastSent(), ledger.now(), null);
    } catch (RateLimitException e) {
      long end = ledger.now();
      List<String> retryAfterMs = e.headers().values("retry-after-ms");
      long retryAfterMillis =
          retryAfterMs.isEmpty() ? 0 : Long.parseLong(retryAfterMs.get(0).strip());
      return new ProviderClient.Reply(
          false,
          retryAfterMillis * 1_000_000L,
          e.type().orElse("requests"),
          transport.lastSent(),
          end,
          null);
    } catch (InternalServerException e) {
      return ProviderClient.Reply.serverError(transport.lastSent(), ledger.now(), null);
    }
  }

  /** The request of one attempt of {@code call}, as {@link ProviderClient} sends it. */
  static ChatCompletionCreateParams params(CallInput call) {
    return ChatCompletionCreateParams.builder()
        .model("mock")
        .addUserMessage("x".repeat((int) (4 * call.promptTokens())))
        .maxCompletionTokens(Math.max(1, call.completionTokens()))
        .putAdditionalHeader("x-tenant", call.tenant())
        .putAdditionalHeader("x-priority", call.priority())
        .putAdditionalHeader("x-call-id", call.callId())
        .build();
  }

  /** The gate charges only the dimensions its policy meters, as the gated activity's costs do. */
  private static CostModel costModel(boolean requests, boolean tokens) {
    Set<String> dimensions = new LinkedHashSet<>();
    if (requests) {
      dimensions.add(Dimension.REQUESTS);
    }
    if (tokens) {
      dimensions.add(Dimension.TOKENS);
    }
    return new CostModel(dimensions);
  }

  @Override
  public void close() {
    client.close();
  }

  /**
   * openai-java's transport, noting on each thread when its last request left (after admission), so
   * an attempt is timed from its send as {@link ProviderClient} times it, and recording each send
   * with its call's admission instant. Thread-safe.
   */
  private static final class SendTimes implements HttpClient {
    private final HttpClient transport;
    private final Ledger ledger;
    private final TimedGate admissions;
    private final ThreadLocal<Long> sentAt = new ThreadLocal<>();

    SendTimes(HttpClient transport, Ledger ledger, TimedGate admissions) {
      this.transport = transport;
      this.ledger = ledger;
      this.admissions = admissions;
    }

    @Override
    public HttpResponse execute(HttpRequest request, RequestOptions options) {
      sending(request);
      return transport.execute(request, options);
    }

    @Override
    public CompletableFuture<HttpResponse> executeAsync(
        HttpRequest request, RequestOptions options) {
      sending(request);
      return transport.executeAsync(request, options);
    }

    private void sending(HttpRequest request) {
      long now = ledger.now();
      sentAt.set(now);
      if (admissions != null) {
        List<String> callId = request.headers().values("x-call-id");
        long admitted = admissions.takeAdmittedAt();
        if (!callId.isEmpty() && admitted >= 0) {
          ledger.sent(callId.get(0), admitted, now);
        }
      }
    }

    /** When this thread's last request was sent, in the ledger's time. */
    long lastSent() {
      Long sent = sentAt.get();
      sentAt.remove();
      return sent == null ? ledger.now() : sent;
    }

    @Override
    public void close() {
      transport.close();
    }
  }
}
