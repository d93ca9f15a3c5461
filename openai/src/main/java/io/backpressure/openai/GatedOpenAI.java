package io.backpressure.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpClient;
import io.backpressure.client.Admitter;
import io.backpressure.client.CallerResolver;
import io.backpressure.client.ClientGate;
import io.backpressure.client.CostModel;
import io.backpressure.client.ModelRoutes;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.core.Gate;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Builds an {@link OpenAIClient} whose chat completions go through the admission gate.
 *
 * <pre>{@code
 * OpenAIClient client = GatedOpenAI.builder()
 *     .gate(gate)                                              // or .routes(ModelRoutes…)
 *     .clientOptions(options -> options.apiKey(key))           // anything ClientOptions takes
 *     .build();
 * try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
 *   ChatCompletion reply = client.chat().completions().create(params);
 * }
 * }</pre>
 *
 * <p><b>The SDK's own retries are off</b> ({@code maxRetries(0)}, set after {@link #clientOptions}
 * so it always holds). openai-java retries a 429 twice on its own, with waits capped at a few
 * seconds, which spends two more requests of the cap and holds the caller's thread; with the gate
 * in front, a call waits for its turn before it is sent, and a 429 that still happens reaches the
 * caller (and the provider feedback) at once. Not thread-safe; build once.
 */
public final class GatedOpenAI {

  private final ClientGate.Builder gate = ClientGate.builder(OpenAiChat.INSTANCE);
  private HttpClient transport;
  private Consumer<ClientOptions.Builder> clientOptions = options -> {};

  private GatedOpenAI() {}

  public static GatedOpenAI builder() {
    return new GatedOpenAI();
  }

  /** Every call goes to {@code gate}. */
  public GatedOpenAI gate(Gate gate) {
    this.gate.gate(gate);
    return this;
  }

  /** Each call goes to the gate its model is routed to. */
  public GatedOpenAI routes(ModelRoutes routes) {
    gate.routes(routes);
    return this;
  }

  /**
   * {@link Admitter#direct()} by default; {@code ActivityAdmitter.create()} inside Temporal
   * activities.
   */
  public GatedOpenAI admitter(Admitter admitter) {
    gate.admitter(admitter);
    return this;
  }

  /** Who a call is for; the thread's {@code GateContext} by default. */
  public GatedOpenAI callerResolver(CallerResolver resolver) {
    gate.callerResolver(resolver);
    return this;
  }

  /** Where every answer's status and rate-limit headers go; nowhere by default. */
  public GatedOpenAI feedback(ProviderFeedback feedback) {
    gate.feedback(feedback);
    return this;
  }

  /** The dimensions calls are charged in; requests and tokens by default. */
  public GatedOpenAI costModel(CostModel costModel) {
    gate.costModel(costModel);
    return this;
  }

  /** The HTTP transport under the gate; openai-java's {@code OkHttpClient} by default. */
  public GatedOpenAI transport(HttpClient transport) {
    this.transport = Objects.requireNonNull(transport, "transport");
    return this;
  }

  /** Sets the client's other options: API key, base URL, timeout, headers, … */
  public GatedOpenAI clientOptions(Consumer<ClientOptions.Builder> clientOptions) {
    this.clientOptions = Objects.requireNonNull(clientOptions, "clientOptions");
    return this;
  }

  /**
   * The gated HTTP client alone, for a {@code ClientOptions} built elsewhere (set {@code
   * maxRetries(0)} there).
   */
  public GatedHttpClient httpClient() {
    return new GatedHttpClient(
        transport == null ? OkHttpClient.builder().build() : transport, gate.build());
  }

  /** The gated client. Closing it closes the transport. */
  public OpenAIClient build() {
    ClientOptions.Builder options = ClientOptions.builder().httpClient(httpClient());
    clientOptions.accept(options);
    options.maxRetries(0);
    return new OpenAIClientImpl(options.build());
  }
}
