package io.backpressure.anthropic;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.Interceptor;
import io.backpressure.client.ClientGate;
import io.backpressure.client.GatedClientBuilder;
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
 * in front, a call waits for its turn before it is sent, and a refusal that still happens (a 429,
 * or one the provider's signals read as a stop: Anthropic's usage-limit 400) goes to the gate and
 * the call asks it again ({@link io.backpressure.client.GatedTransport#execute}): it is deferred
 * until the provider's retry-after, or refused until the stop's reset, instead of reaching the
 * caller as the provider's error (with the default provider feedback; with {@code
 * ProviderFeedback.NONE} the refusal reaches the caller as it is).
 *
 * <p>The gate options are {@link GatedClientBuilder}'s; {@code
 * costModel(CostModel.SEPARATE_INPUT_OUTPUT)} charges Anthropic's separate input and output token
 * limits ({@code input_tokens}, {@code output_tokens}). Not thread-safe; build once.
 */
public final class GatedAnthropic extends GatedClientBuilder<GatedAnthropic> {

  private Consumer<AnthropicOkHttpClient.Builder> clientOptions = options -> {};

  private GatedAnthropic() {
    super(AnthropicMessages.INSTANCE);
  }

  public static GatedAnthropic builder() {
    return new GatedAnthropic();
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
    ClientGate clientGate = clientGate();
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

  @Override
  protected GatedAnthropic self() {
    return this;
  }
}
