package io.backpressure.springai;

import io.backpressure.client.GateContext;
import io.backpressure.client.GatedCall;
import io.backpressure.client.NotAdmittedException;
import io.backpressure.client.TokenEstimator;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.RateLimit;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SignalType;

/**
 * A {@code ChatClient} advisor that asks the gate before every model call and releases the grant
 * with the answer's {@link Usage}.
 *
 * <pre>{@code
 * ChatClient chat = ChatClient.builder(openAi)
 *     .defaultAdvisors(BackpressureAdvisor.builder(gate).build())
 *     .build();
 * String answer = chat.prompt("Hello")
 *     .advisors(a -> a.param(BackpressureAdvisor.TENANT, "acme").param(BackpressureAdvisor.PRIORITY, "P1"))
 *     .call().content();
 * }</pre>
 *
 * <p>Per call: the context comes from the advisor parameters ({@link GateContext#KEY} with a {@link
 * GateContext}, or {@link #TENANT} and {@link #PRIORITY}), else from {@link GateContext#current()}
 * (calls only: a stream may be subscribed on another thread), else from the builder's default. The
 * cost is one request plus the {@link TokenEstimator}'s estimate of the prompt's messages, with the
 * prompt options' {@code maxTokens} as the completion limit. The advisor sits just before the model
 * ({@link #getOrder()}), so it sees the prompt that memory and retrieval advisors have built, and
 * every model call of a retrying advisor above it is admitted anew. The call's deadline for its
 * answer is the context's ({@link GateContext#withDeadline}), or the timeout of Spring AI's OpenAI
 * options the prompt carries ({@code OpenAiChatOptions.timeout}, the request timeout the model
 * sends the call with) when that is shorter, outside a Temporal activity (where the activity's
 * timeouts bound the call): a call whose turn would come after it ends with {@code
 * ExpiredException} at once, unsent.
 *
 * <p>Not admitted: inside a Temporal activity the call ends the activity as {@code ActivityGate}
 * does; elsewhere {@code call()} throws a {@link NotAdmittedException} (a deferral carries Δ and
 * the booking) and a stream fails with it, without reaching the provider. Inside an activity a
 * stream is run to its end on the activity thread and then replayed, so the grant is released
 * within the attempt. After each answer the {@link RateLimitFeedback} hears the provider's
 * rate-limit report as Spring AI parsed it.
 *
 * <p>The gate itself hears the provider at the HTTP layer, on by default ({@link
 * Builder#providerFeedback}): with {@link OpenAiSendCheck} on the OpenAI model's client, each
 * answer's status and rate-limit headers ({@code x-ratelimit-remaining-*}, {@code retry-after})
 * reach the gate, which follows the provider's own count and waits out its retry-after.
 *
 * <p>A provider's 429 is recognised by {@code RateLimits.byName()}: by the exception's class name
 * (openai-java's, anthropic-java's) or by the HTTP status it exposes (google-genai's {@code
 * ClientException}, which Spring AI's Google GenAI model throws).
 *
 * <p>Turn off the model's own retries of 429 answers (Spring AI's OpenAI options {@code
 * maxRetries(0)}; for Google GenAI, the client's {@code HttpRetryOptions.attempts(1)} and the
 * model's {@code retryTemplate} with no retries); the gate replaces them. Thread-safe.
 */
public final class BackpressureAdvisor implements CallAdvisor, StreamAdvisor {
  /** Advisor parameter: the tenant (a string). */
  public static final String TENANT = "backpressure.tenant";

  /** Advisor parameter: the priority class (a string). */
  public static final String PRIORITY = "backpressure.priority";

  /** Just before the model: Spring AI's model-calling advisors sit at {@code LOWEST_PRECEDENCE}. */
  public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1_000;

  private static final Logger LOG = LoggerFactory.getLogger(BackpressureAdvisor.class);

  /**
   * Whether Spring AI's OpenAI model is on the class path (an optional dependency), so that {@link
   * OpenAiTimeout} may be loaded.
   */
  private static final boolean OPENAI_OPTIONS =
      ClassUtils.isPresent(
          "org.springframework.ai.openai.OpenAiChatOptions",
          BackpressureAdvisor.class.getClassLoader());

  private final GatedCall gatedCall;
  private final TokenEstimator estimator;
  private final GateContext defaultContext;
  private final RateLimitFeedback feedback;
  private final int order;

  private BackpressureAdvisor(Builder builder) {
    this.gatedCall = builder.gatedCall.build();
    this.estimator = builder.estimator;
    this.defaultContext = builder.defaultContext;
    this.feedback = builder.feedback;
    this.order = builder.order;
  }

  /** A builder for an advisor admitting through {@code gate}. */
  public static Builder builder(Gate gate) {
    return new Builder(gate);
  }

  @Override
  public String getName() {
    return "BackpressureAdvisor";
  }

  @Override
  public int getOrder() {
    return order;
  }

  @Override
  public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
    GateContext context =
        withTimeout(
            context(request.context(), GateContext.current().orElse(null)), request.prompt());
    ChatClientResponse response =
        gatedCall.call(
            context,
            estimate(request.prompt()),
            maxTokens(request.prompt()),
            // A chain runs once: every send (a resend after a 429 too) takes a copy of the rest.
            () -> chain.copy(this).nextCall(request),
            BackpressureAdvisor::usage);
    report(response);
    return response;
  }

  @Override
  public Flux<ChatClientResponse> adviseStream(
      ChatClientRequest request, StreamAdvisorChain chain) {
    return Flux.defer(
        () -> {
          GateContext context = withTimeout(context(request.context(), null), request.prompt());
          Cost estimate = estimate(request.prompt());
          Long maxTokens = maxTokens(request.prompt());
          if (gatedCall.insideActivity()) {
            List<ChatClientResponse> chunks =
                gatedCall.call(
                    context,
                    estimate,
                    maxTokens,
                    () -> chain.copy(this).nextStream(request).collectList().block(),
                    BackpressureAdvisor::usage);
            chunks.forEach(this::report);
            return Flux.fromIterable(chunks);
          }
          Grant grant = gatedCall.admit(context, estimate, maxTokens);
          AtomicReference<Cost> reported = new AtomicReference<>();
          return chain
              .nextStream(request)
              .doOnNext(
                  chunk -> {
                    Cost usage = usage(chunk);
                    if (usage != null) {
                      reported.set(usage);
                    }
                    report(chunk);
                  })
              .doFinally(
                  signal -> {
                    // Usage reported wins. Without it: a failed stream generated nothing the
                    // provider
                    // counts; a completed or cancelled one may have, so it keeps what was debited.
                    Cost actual = reported.get();
                    if (actual == null) {
                      actual =
                          signal == SignalType.ON_ERROR
                              ? GatedCall.failureUsage(grant.debited())
                              : grant.debited();
                    }
                    gatedCall.release(grant, actual);
                  });
        });
  }

  /** The call's context; throws the rejection for a call that carries none. */
  private GateContext context(Map<String, Object> params, GateContext threadScoped) {
    if (params.get(GateContext.KEY) instanceof GateContext given) {
      return given;
    }
    Object tenant = params.get(TENANT);
    if (tenant != null) {
      Object priority = params.get(PRIORITY);
      return GateContext.of(
          tenant.toString(), priority == null ? defaultPriority() : priority.toString());
    }
    if (threadScoped != null) {
      return threadScoped;
    }
    if (defaultContext != null) {
      return defaultContext;
    }
    throw gatedCall.missingContext();
  }

  /**
   * {@code context} with the prompt options' timeout as its deadline, when they have one shorter
   * than the context's own: Spring AI's OpenAI options ({@code OpenAiChatOptions.timeout}, the
   * model's defaults as the prompt carries them, or the call's own) are the request timeout the
   * OpenAI model sends the call with. Zero, openai-java's "no timeout", is none; other models'
   * options carry no timeout. Inside a Temporal activity the context is left as it is: a deferral
   * ends the attempt and a later one sends the call with a timeout of its own, so the activity's
   * timeouts bound the call instead ({@code ActivityGate}).
   */
  private GateContext withTimeout(GateContext context, Prompt prompt) {
    Duration timeout =
        OPENAI_OPTIONS && !gatedCall.insideActivity()
            ? OpenAiTimeout.of(prompt.getOptions())
            : null;
    Duration own = context.deadline();
    if (timeout == null
        || timeout.isNegative()
        || timeout.isZero()
        || (own != null && own.compareTo(timeout) <= 0)) {
      return context;
    }
    return context.withDeadline(timeout);
  }

  /** The timeout of Spring AI's OpenAI options; loaded only when they are on the class path. */
  private static final class OpenAiTimeout {
    private OpenAiTimeout() {}

    static Duration of(ChatOptions options) {
      return options instanceof OpenAiChatOptions openAi ? openAi.getTimeout() : null;
    }
  }

  private String defaultPriority() {
    return defaultContext == null ? null : defaultContext.priority();
  }

  private Cost estimate(Prompt prompt) {
    List<String> texts = new ArrayList<>();
    for (Message message : prompt.getInstructions()) {
      texts.add(message.getText() == null ? "" : message.getText());
    }
    return Cost.requests(1).tokens(estimator.estimate(texts));
  }

  private static Long maxTokens(Prompt prompt) {
    ChatOptions options = prompt.getOptions();
    Integer max = options == null ? null : options.getMaxTokens();
    return max == null ? null : max.longValue();
  }

  /** One request and the answer's total tokens; null when the answer reports no usage. */
  static Cost usage(ChatClientResponse response) {
    ChatResponseMetadata metadata = metadata(response);
    Usage usage = metadata == null ? null : metadata.getUsage();
    Integer total = usage == null ? null : usage.getTotalTokens();
    return total == null || total == 0 ? null : Cost.requests(1).tokens(total);
  }

  /** The total usage of a stream run to its end: the last chunk that reports any. */
  static Cost usage(List<ChatClientResponse> chunks) {
    Cost last = null;
    for (ChatClientResponse chunk : chunks) {
      Cost usage = usage(chunk);
      if (usage != null) {
        last = usage;
      }
    }
    return last;
  }

  private void report(ChatClientResponse response) {
    ChatResponseMetadata metadata = metadata(response);
    RateLimit rateLimit = metadata == null ? null : metadata.getRateLimit();
    if (rateLimit == null) {
      return;
    }
    try {
      feedback.onAnswer(gatedCall.gate().target(), rateLimit);
    } catch (RuntimeException e) {
      LOG.warn("rate-limit feedback for target {} failed", gatedCall.gate().target(), e);
    }
  }

  private static ChatResponseMetadata metadata(ChatClientResponse response) {
    return response == null || response.chatResponse() == null
        ? null
        : response.chatResponse().getMetadata();
  }

  /** Options of a {@link BackpressureAdvisor}; not thread-safe. */
  public static final class Builder {
    private final GatedCall.Builder gatedCall;
    private TokenEstimator estimator = TokenEstimator.charsPerToken();
    private GateContext defaultContext;
    private RateLimitFeedback feedback = RateLimitFeedback.NONE;
    private int order = DEFAULT_ORDER;

    private Builder(Gate gate) {
      this.gatedCall = GatedCall.builder(Objects.requireNonNull(gate, "gate"));
    }

    /** How prompt tokens are estimated before the call (default: four characters per token). */
    public Builder estimator(TokenEstimator estimator) {
      this.estimator = Objects.requireNonNull(estimator, "estimator");
      return this;
    }

    /**
     * The context of calls that carry none, and the class of calls that name only a tenant
     * (default: none; such calls are rejected).
     */
    public Builder defaultContext(GateContext context) {
      this.defaultContext = Objects.requireNonNull(context, "context");
      return this;
    }

    /** Who hears the provider's rate-limit reports (default: {@link RateLimitFeedback#NONE}). */
    public Builder feedback(RateLimitFeedback feedback) {
      this.feedback = Objects.requireNonNull(feedback, "feedback");
      return this;
    }

    /**
     * Whether the provider's answers heard at the HTTP layer ({@link OpenAiSendCheck} on Spring
     * AI's OpenAI model) go to the gate, their rate-limit headers and retry-after with them; on by
     * default. Off, the gate hears only the 429s the model throws, each taken as a one-second hold.
     */
    public Builder providerFeedback(boolean on) {
      gatedCall.providerFeedback(on);
      return this;
    }

    /** Inside a Temporal activity, the bound on a server-timed wait (default 10 min). */
    public Builder activityMaxWait(Duration maxWait) {
      gatedCall.activityMaxWait(maxWait);
      return this;
    }

    /**
     * Outside Temporal, a deferred call waits for its turn on the calling thread, keeping its place
     * in line, for at most {@code maxWait} (in (0, 1 h]); a call whose turn would come later is
     * refused at once with {@code ExpiredException}. A provider 429 becomes such a wait too. By
     * default a deferral throws {@code DeferredException} at once.
     */
    public Builder maxWait(Duration maxWait) {
      gatedCall.maxWait(maxWait);
      return this;
    }

    /** The advisor's place in the chain (default {@link #DEFAULT_ORDER}, just before the model). */
    public Builder order(int order) {
      this.order = order;
      return this;
    }

    public BackpressureAdvisor build() {
      return new BackpressureAdvisor(this);
    }
  }
}
