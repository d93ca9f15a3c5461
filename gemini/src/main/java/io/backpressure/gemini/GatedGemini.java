package io.backpressure.gemini;

import com.google.genai.Client;
import com.google.genai.types.ClientOptions;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import io.backpressure.client.GatedClientBuilder;
import java.util.Objects;
import java.util.function.Consumer;
import okhttp3.OkHttpClient;

/**
 * Builds a google-genai {@link Client} whose {@code generateContent} and {@code
 * generateContentStream} calls go through the admission gate.
 *
 * <pre>{@code
 * Client client = GatedGemini.builder()
 *     .gate(gate)                                   // or .routes(ModelRoutes…)
 *     .feedback(ProviderFeedback.toGate(gate))      // RetryInfo and QuotaFailure reach the gate
 *     .client(builder -> builder.apiKey(key))       // anything Client.Builder takes
 *     .build();
 * try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
 *   GenerateContentResponse reply = client.models.generateContent("gemini-2.5-flash", "Hi", null);
 * }
 * }</pre>
 *
 * <p><b>The client's own retries are off</b> ({@code HttpRetryOptions.attempts(1)}, set after
 * {@link #httpOptions} so it always holds). google-genai retries 429s and 5xx itself by default,
 * inside the {@code OkHttpClient}, where the gate does not see them: each would spend a request of
 * the quota that was not admitted. With the gate in front, a call waits for its turn before it is
 * sent, and a refusal that still happens (a 429, or one the provider's signals read as a stop: a
 * spent per-day quota) goes to the gate and the call asks it again ({@link
 * io.backpressure.client.GatedTransport#execute}): it is deferred until the provider's retry-after,
 * or refused until the stop's reset, instead of reaching the caller as the provider's error (with
 * the default provider feedback; with {@code ProviderFeedback.NONE} it reaches the caller as it
 * is).
 *
 * <p>The gate sees each call at the {@code OkHttpClient} the SDK sends through ({@link
 * GatedInterceptor}), not at {@code Models}: only there are the 429's {@code RetryInfo} and {@code
 * QuotaFailure} details readable (the SDK's {@code ClientException} keeps the message and the
 * status alone), and the synchronous, asynchronous and streaming calls all pass there.
 *
 * <p>The gate options are {@link GatedClientBuilder}'s: the gate is the one of the project (and
 * model) the client calls, and the Gemini API meters input tokens per minute, which {@code
 * costModel(CostModel.of("requests", "input_tokens"))} charges. Not thread-safe; build once.
 */
public final class GatedGemini extends GatedClientBuilder<GatedGemini> {

  private OkHttpClient transport;
  private Consumer<Client.Builder> client = builder -> {};
  private Consumer<HttpOptions.Builder> httpOptions = options -> {};

  private GatedGemini() {
    super(GeminiGenerate.INSTANCE);
  }

  public static GatedGemini builder() {
    return new GatedGemini();
  }

  /** The {@code OkHttpClient} under the gate (its pool, proxy, timeouts); a new one by default. */
  public GatedGemini transport(OkHttpClient transport) {
    this.transport = Objects.requireNonNull(transport, "transport");
    return this;
  }

  /** Sets the client's other options: API key, or project and location for Vertex AI. */
  public GatedGemini client(Consumer<Client.Builder> client) {
    this.client = Objects.requireNonNull(client, "client");
    return this;
  }

  /** Sets the HTTP options: base URL, API version, headers, timeout (not the retries). */
  public GatedGemini httpOptions(Consumer<HttpOptions.Builder> httpOptions) {
    this.httpOptions = Objects.requireNonNull(httpOptions, "httpOptions");
    return this;
  }

  /** The gated client. */
  public Client build() {
    OkHttpClient base = transport == null ? new OkHttpClient() : transport;
    OkHttpClient gated =
        base.newBuilder().addInterceptor(new GatedInterceptor(clientGate())).build();
    HttpOptions.Builder options = HttpOptions.builder();
    httpOptions.accept(options);
    options.retryOptions(HttpRetryOptions.builder().attempts(1).build());
    Client.Builder builder = Client.builder();
    client.accept(builder);
    return builder
        .httpOptions(options.build())
        .clientOptions(ClientOptions.builder().customHttpClient(gated).build())
        .build();
  }

  @Override
  protected GatedGemini self() {
    return this;
  }
}
