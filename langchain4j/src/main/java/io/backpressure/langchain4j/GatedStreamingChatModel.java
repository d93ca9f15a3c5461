package io.backpressure.langchain4j;

import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatRequestOptions;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import io.backpressure.client.GateContext;
import io.backpressure.client.GatedCall;
import io.backpressure.client.NotAdmittedException;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A {@link StreamingChatModel} that asks the gate before every stream of the model it wraps and
 * releases the grant with the final response's {@code TokenUsage} (or, when the stream fails, with
 * the debited cost less its tokens). The context, the estimate and the completion limit are read as
 * by {@link GatedChatModel}.
 *
 * <pre>{@code
 * StreamingChatModel model = GatedStreamingChatModel.builder(openAiStreaming, gate).build();
 * GateContext.of("acme", "P2").run(() -> model.chat("Hello", handler));
 * }</pre>
 *
 * <p>A call that is not admitted never reaches the provider. Outside Temporal, the caller's handler
 * gets the {@link NotAdmittedException} in {@code onError} (a deferral carries Δ and the booking).
 * A stream must leave within its gate's {@code sendWithin()} of its admission, checked when the
 * wrapped model is built with a {@link SendCheckingHttpClientBuilder}: one that leaves later is
 * admitted again first (see there); the same client hands the stream's answer (its status and
 * rate-limit headers when it opens, before the first chunk, or its refusal) to the gate's provider
 * feedback, as for {@link GatedChatModel}. Inside a Temporal activity, {@code chat} streams to the
 * handler as usual but returns only when the stream has ended, so that the grant is released within
 * the attempt, and a deferral ends the activity as {@code ActivityGate} does. Thread-safe when the
 * wrapped model is.
 */
public final class GatedStreamingChatModel implements StreamingChatModel {
  private final StreamingChatModel delegate;
  private final GatedCall gatedCall;
  private final ChatCalls calls;

  private GatedStreamingChatModel(Builder builder) {
    this.delegate = builder.delegate;
    this.gatedCall = builder.gatedCall();
    this.calls = builder.calls();
  }

  /** A builder wrapping {@code delegate} with admission through {@code gate}. */
  public static Builder builder(StreamingChatModel delegate, Gate gate) {
    return new Builder(delegate, gate);
  }

  @Override
  public void chat(
      ChatRequest request, ChatRequestOptions options, StreamingChatResponseHandler handler) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(handler, "handler");
    GateContext context = calls.context(options);
    if (context == null) {
      handler.onError(gatedCall.missingContext());
      return;
    }
    Cost estimate = calls.estimate(request);
    Long maxTokens = ChatCalls.maxTokens(request, delegate.defaultRequestParameters());
    if (gatedCall.insideActivity()) {
      gatedCall.call(
          context,
          estimate,
          maxTokens,
          () -> streamToEnd(request, options, handler),
          ChatCalls::usage);
      return;
    }
    try {
      gatedCall.stream(
          context,
          estimate,
          maxTokens,
          stream -> delegate.chat(request, options, releasing(handler, stream)));
    } catch (NotAdmittedException notAdmitted) {
      handler.onError(notAdmitted);
    }
  }

  /** {@code handler}, the stream's grant in force released when the stream ends. */
  private ReleasingHandler releasing(
      StreamingChatResponseHandler handler, GatedCall.Stream stream) {
    return new ReleasingHandler(
        handler,
        response -> {
          Grant grant = stream.grant();
          Cost actual = ChatCalls.usage(response);
          gatedCall.release(grant, actual == null ? grant.debited() : actual);
        },
        error ->
            gatedCall.release(stream.grant(), GatedCall.failureUsage(stream.grant().debited())));
  }

  /**
   * Streams to {@code handler} and waits for the end: the final response, or the stream's error.
   */
  private ChatResponse streamToEnd(
      ChatRequest request, ChatRequestOptions options, StreamingChatResponseHandler handler)
      throws Exception {
    CompletableFuture<ChatResponse> end = new CompletableFuture<>();
    delegate.chat(
        request, options, new ReleasingHandler(handler, end::complete, end::completeExceptionally));
    try {
      return end.get();
    } catch (ExecutionException failed) {
      if (failed.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw failed;
    }
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
   * Options of a {@link GatedStreamingChatModel} (the shared ones are {@link GatedModelBuilder}'s);
   * not thread-safe.
   */
  public static final class Builder extends GatedModelBuilder<Builder> {
    private final StreamingChatModel delegate;

    private Builder(StreamingChatModel delegate, Gate gate) {
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
    public GatedStreamingChatModel build() {
      ModelRetries.requireNone(delegate);
      return new GatedStreamingChatModel(this);
    }
  }
}
