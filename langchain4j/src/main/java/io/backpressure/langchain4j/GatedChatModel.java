package io.backpressure.langchain4j;

import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.ChatRequestOptions;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.backpressure.client.GateContext;
import io.backpressure.client.GatedCall;
import io.backpressure.client.NotAdmittedException;
import io.backpressure.client.TokenEstimator;
import io.backpressure.core.Gate;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link ChatModel} that asks the gate before every call of the model it wraps and releases the
 * grant with the reply's {@code TokenUsage}.
 *
 * <pre>{@code
 * ChatModel model = GatedChatModel.builder(openAi, gate).build();
 * String answer = GateContext.of("acme", "P1").call(() -> model.chat("Hello"));
 * }</pre>
 *
 * <p>Per call: the context (tenant, class) comes from the {@link GateContext#KEY} listener
 * attribute of the call's {@link ChatRequestOptions}, else from {@link GateContext#current()}, else
 * from the builder's default; the cost is one request plus the {@link TokenEstimator}'s estimate of
 * the messages, with the request's {@code maxOutputTokens} (or the model's default) as the
 * completion limit. Inside a Temporal activity a deferral ends the activity as {@code ActivityGate}
 * does; elsewhere the call throws a {@link NotAdmittedException} (a deferral carries Δ and the
 * booking) without reaching the provider. See {@link GatedCall}.
 *
 * <p>An admitted call must leave within its gate's {@code sendWithin()}: build the wrapped model
 * with a {@link SendCheckingHttpClientBuilder}, which checks that when the request leaves and asks
 * the gate again for a call that is late. A decorator cannot see inside a model already built, so
 * without it the time the model takes between the admission and the request is not checked.
 *
 * <p>Turn off the wrapped model's own retries of 429 answers ({@code maxRetries(0)} on
 * LangChain4j's model builders): a retry on the calling thread is what the gate replaces. The
 * wrapped model's listeners still run; this decorator adds none. Thread-safe when the wrapped model
 * is.
 */
public final class GatedChatModel implements ChatModel {
  private final ChatModel delegate;
  private final GatedCall gatedCall;
  private final ChatCalls calls;

  private GatedChatModel(Builder builder) {
    this.delegate = builder.delegate;
    this.gatedCall = builder.gatedCall();
    this.calls = builder.calls();
  }

  /** A builder wrapping {@code delegate} with admission through {@code gate}. */
  public static Builder builder(ChatModel delegate, Gate gate) {
    return new Builder(delegate, gate);
  }

  @Override
  public ChatResponse chat(ChatRequest request, ChatRequestOptions options) {
    Objects.requireNonNull(request, "request");
    GateContext context = calls.context(options);
    if (context == null) {
      throw gatedCall.missingContext();
    }
    return gatedCall.call(
        context,
        calls.estimate(request),
        ChatCalls.maxTokens(request, delegate.defaultRequestParameters()),
        () -> options == null ? delegate.chat(request) : delegate.chat(request, options),
        ChatCalls::usage);
  }

  @Override
  public ChatRequestParameters defaultRequestParameters() {
    return delegate.defaultRequestParameters();
  }

  @Override
  public ModelProvider provider() {
    return delegate.provider();
  }

  @Override
  public Set<Capability> supportedCapabilities() {
    return delegate.supportedCapabilities();
  }

  /**
   * Options of a {@link GatedChatModel} (the shared ones are {@link GatedModelBuilder}'s); not
   * thread-safe.
   */
  public static final class Builder extends GatedModelBuilder<Builder> {
    private final ChatModel delegate;

    private Builder(ChatModel delegate, Gate gate) {
      super(gate);
      this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    Builder self() {
      return this;
    }

    /**
     * The gated model.
     *
     * @throws IllegalArgumentException when the wrapped model retries failed calls on its own
     *     ({@code maxRetries} above 0): the gate replaces those retries
     */
    public GatedChatModel build() {
      ModelRetries.requireNone(delegate);
      return new GatedChatModel(this);
    }
  }
}
