package io.backpressure.client;

import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Recognises a provider's 429 in what a framework's model call throws, for {@link GatedCall}, so
 * that the refusal becomes a deferral through the gate instead of reaching the caller.
 * Implementations are stateless and thread-safe.
 */
@FunctionalInterface
public interface RateLimits {

  /** The retry-after taken for a 429 that states none: one second. */
  Duration ASSUMED_RETRY_AFTER = Duration.ofSeconds(1);

  /**
   * The provider signal of {@code failure} when it (or one of its causes) is a 429, else null.
   *
   * @param failure what the call threw; never null
   */
  @Nullable ProviderSignal signal(Throwable failure);

  /**
   * A 429 is an exception in the cause chain whose class is named {@code RateLimitException}
   * (LangChain4j's {@code dev.langchain4j.exception.RateLimitException}; openai-java's and
   * anthropic-java's {@code …errors.RateLimitException}, which Spring AI's models throw) or {@code
   * TooManyRequests} (Spring's {@code HttpClientErrorException.TooManyRequests}), or one that
   * exposes the answer's HTTP status as 429 through a public no-argument method named {@code
   * statusCode()}, {@code code()} or {@code getStatusCode()} returning an {@code int} or an object
   * whose {@code value()} is one: google-genai's {@code com.google.genai.errors.ClientException}
   * ({@code code()}, which Spring AI's Google GenAI model throws), the AWS SDK's {@code
   * SdkServiceException} ({@code statusCode()}), LangChain4j's {@code HttpException}, Spring's
   * {@code RestClientResponseException} ({@code getStatusCode().value()}).
   *
   * <p>These carry no retry-after this layer can read, so the signal says {@link
   * #ASSUMED_RETRY_AFTER}, the length of the providers' per-second windows: every dimension of the
   * gate is held that long, and the call's next turn comes after it. The gated SDK clients read the
   * provider's own headers and bodies.
   */
  static RateLimits byName() {
    Set<String> names = Set.of("RateLimitException", "TooManyRequests");
    return failure -> {
      int depth = 0;
      for (Throwable t = failure; t != null && depth < 16; t = t.getCause(), depth++) {
        if (names.contains(t.getClass().getSimpleName())
            || HttpStatuses.of(t) == ProviderSignal.TOO_MANY_REQUESTS) {
          return withRetryAfter(ProviderSignal.ofStatus(ProviderSignal.TOO_MANY_REQUESTS));
        }
      }
      return null;
    };
  }

  /**
   * {@code signal}, and when it is a 429 that says neither a retry-after nor a reset, the same with
   * {@link #ASSUMED_RETRY_AFTER}: without one the gate would only lower its effective caps and
   * could admit the refused call again at once.
   */
  static ProviderSignal withRetryAfter(ProviderSignal signal) {
    if (!signal.rateLimited()
        || signal.retryAfter() != null
        || signal.limits().values().stream().anyMatch(limit -> limit.reset() != null)) {
      return signal;
    }
    return new ProviderSignal(
        signal.status(),
        signal.exhausted(),
        signal.limits(),
        ASSUMED_RETRY_AFTER,
        signal.usage(),
        signal.ignored(),
        signal.resumed());
  }

  /** Never a 429: every failure reaches the caller as it is. */
  static RateLimits none() {
    return failure -> null;
  }
}
