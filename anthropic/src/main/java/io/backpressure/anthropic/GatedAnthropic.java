package io.backpressure.anthropic;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.Interceptor;
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
 * Builds an {@link AnthropicClient} whose messages go through the admission gate.
 *
 * <pre>{@code
 * AnthropicClient client = GatedAnthropic.builder()
 *     .gate(gate)                                              // or .routes(ModelRoutes…)
 *     .clientOptions(options -> options.apiKey(key))           // anything the SDK's builder takes
 *     .build();
 * try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
 *   Message reply = client.messages().create(params);
 * }
 * }</pre>
 *
 * <p>The gate sits in the SDK's HTTP stack as an {@link Interceptor} (anthropic-java's hook for
 * wrapping the {@code HttpClient} it sends through), below the SDK's retries and above its
 * transport.
 *
 * <p><b>The SDK's own retries are off</b> ({@code maxRetries(0)}, set after {@link #clientOptions}
 * so it always holds). anthropic-java retries a 429 twice on its own, with waits capped at a few
 * seconds, which spends two more requests of the cap and holds the caller's thread; with the gate
 * in front, a call waits for its turn before it is sent, and a 429 that still happens reaches the
 * caller (and the provider feedback) at once. Not thread-safe; build once.
 */
public final class GatedAnthropic {

  private final ClientGate.Builder gate = ClientGate.builder(AnthropicMessages.INSTANCE);
  private Consumer<AnthropicOkHttpClient.Builder> clientOptions = options -> {};

  private GatedAnthropic() {}

  public static GatedAnthropic builder() {
    return new GatedAnthropic();
  }

  /** Every call goes to {@code gate}. */
  public GatedAnthropic gate(Gate gate) {
    this.gate.gate(gate);
    return this;
  }

  /** Each call goes to the gate its model is routed to. */
  public GatedAnthropic routes(ModelRoutes routes) {
    gate.routes(routes);
    return this;
  }

  /**
   * {@link Admitter#direct()} by default; {@code ActivityAdmitter.create()} inside Temporal
   * activities.
   */
  public GatedAnthropic admitter(Admitter admitter) {
    gate.admitter(admitter);
    return this;
  }

  /** Who a call is for; the thread's {@code GateContext} by default. */
  public GatedAnthropic callerResolver(CallerResolver resolver) {
    gate.callerResolver(resolver);
    return this;
  }

  /** Where every answer's status and rate-limit headers go; nowhere by default. */
  public GatedAnthropic feedback(ProviderFeedback feedback) {
    gate.feedback(feedback);
    return this;
  }

  /**
   * The dimensions calls are charged in; requests and tokens by default. {@link
   * CostModel#SEPARATE_INPUT_OUTPUT} charges Anthropic's separate input and output token limits
   * ({@code input_tokens}, {@code output_tokens}) instead.
   */
  public GatedAnthropic costModel(CostModel costModel) {
    gate.costModel(costModel);
    return this;
  }

  /** Sets the client's other options: API key, base URL, timeout, headers, … */
  public GatedAnthropic clientOptions(Consumer<AnthropicOkHttpClient.Builder> clientOptions) {
    this.clientOptions = Objects.requireNonNull(clientOptions, "clientOptions");
    return this;
  }

  /**
   * The gate alone, as an interceptor for an {@code AnthropicOkHttpClient.builder()} configured
   * elsewhere ({@code addInterceptor(…)}; set {@code maxRetries(0)} there too).
   */
  public Interceptor interceptor() {
    ClientGate clientGate = gate.build();
    return client -> new GatedHttpClient(client, clientGate);
  }

  /** The gated client. */
  public AnthropicClient build() {
    AnthropicOkHttpClient.Builder builder = AnthropicOkHttpClient.builder();
    clientOptions.accept(builder);
    builder.addInterceptor(interceptor());
    builder.maxRetries(0);
    return builder.build();
  }
}
