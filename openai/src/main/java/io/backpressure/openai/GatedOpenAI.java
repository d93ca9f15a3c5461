package io.backpressure.openai;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.client.okhttp.OkHttpClient;
import com.openai.core.ClientOptions;
import com.openai.core.http.HttpClient;
import io.backpressure.client.GatedClientBuilder;
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
 * in front, a call waits for its turn before it is sent, and a refusal that still happens (a 429,
 * or one the provider's signals read as a stop: a spent daily quota or spend limit) goes to the
 * gate and the call asks it again ({@link io.backpressure.client.GatedTransport#execute}): it is
 * deferred until the provider's retry-after, or refused until the stop's reset, instead of reaching
 * the caller as the provider's error (with the default provider feedback; with {@code
 * ProviderFeedback.NONE} the refusal reaches the caller as it is).
 *
 * <p>The gate options are {@link GatedClientBuilder}'s. Not thread-safe; build once.
 */
public final class GatedOpenAI extends GatedClientBuilder<GatedOpenAI> {

  private HttpClient transport;
  private Consumer<ClientOptions.Builder> clientOptions = options -> {};

  private GatedOpenAI() {
    super(OpenAiChat.INSTANCE);
  }

  public static GatedOpenAI builder() {
    return new GatedOpenAI();
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
        transport == null ? OkHttpClient.builder().build() : transport, clientGate());
  }

  /** The gated client. Closing it closes the transport. */
  public OpenAIClient build() {
    ClientOptions.Builder options = ClientOptions.builder().httpClient(httpClient());
    clientOptions.accept(options);
    options.maxRetries(0);
    return new OpenAIClientImpl(options.build());
  }

  @Override
  protected GatedOpenAI self() {
    return this;
  }
}
