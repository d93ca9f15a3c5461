package io.backpressure.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.feedback.ProviderSignal;
import org.junit.jupiter.api.Test;

/**
 * {@link RateLimits#byName()} on exceptions shaped like the SDKs' own: the status accessors are
 * those of google-genai ({@code code()}), the AWS SDK and openai-java ({@code statusCode()}) and
 * Spring ({@code getStatusCode().value()}); the real google-genai exception is exercised through
 * Spring AI in the spring-ai module's tests.
 */
class RateLimitsTest {
  private final RateLimits byName = RateLimits.byName();

  /** google-genai's shape: {@code int code()} beside a {@code String status()}. */
  public static class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int code;

    ApiException(int code) {
      super("status " + code);
      this.code = code;
    }

    public int code() {
      return code;
    }

    public String status() {
      return code == 429 ? "RESOURCE_EXHAUSTED" : "INVALID_ARGUMENT";
    }
  }

  /** The AWS SDK's and openai-java's shape: {@code int statusCode()}. */
  public static class ServiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int statusCode;

    ServiceException(int statusCode) {
      this.statusCode = statusCode;
    }

    public int statusCode() {
      return statusCode;
    }
  }

  /** Spring's shape: {@code getStatusCode()} answering an interface whose {@code value()} is it. */
  public interface StatusCode {
    int value();
  }

  public static class ResponseException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    ResponseException(int status) {
      this.status = status;
    }

    public StatusCode getStatusCode() {
      return new StatusCode() { // an anonymous class: reached through the public interface
        @Override
        public int value() {
          return status;
        }
      };
    }
  }

  /** A private subclass of a public SDK type: the accessor is read through the public one. */
  private static final class Throttling extends ServiceException {
    private static final long serialVersionUID = 1L;

    Throttling() {
      super(429);
    }
  }

  /** An exception whose {@code code()} is not a status at all. */
  public static class CodedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public String code() {
      return "429";
    }
  }

  @Test
  void aStatusOf429ExposedByAnyAccessorIsA429WithTheAssumedRetryAfter() {
    for (RuntimeException failure :
        new RuntimeException[] {
          new ApiException(429),
          new ServiceException(429),
          new ResponseException(429),
          new Throttling()
        }) {
      ProviderSignal signal = byName.signal(failure);

      assertThat(signal).as(failure.getClass().getSimpleName()).isNotNull();
      assertThat(signal.status()).isEqualTo(429);
      assertThat(signal.retryAfter()).isEqualTo(RateLimits.ASSUMED_RETRY_AFTER);
    }
  }

  @Test
  void aWrapped429IsFoundInTheCauseChain() {
    RuntimeException wrapped =
        new IllegalStateException("Failed to generate content", new ApiException(429));

    assertThat(byName.signal(wrapped)).isNotNull();
  }

  @Test
  void otherStatusesAndNonStatusCodesAreNotA429() {
    assertThat(byName.signal(new ApiException(400))).isNull();
    assertThat(byName.signal(new ServiceException(503))).isNull();
    assertThat(byName.signal(new ResponseException(500))).isNull();
    assertThat(byName.signal(new CodedException())).isNull();
    assertThat(byName.signal(new IllegalStateException("429"))).isNull();
  }

  @Test
  void anAccessorThatThrowsIsNoStatus() {
    RuntimeException broken =
        new ServiceException(429) {
          private static final long serialVersionUID = 1L;

          @Override
          public int statusCode() {
            throw new UnsupportedOperationException("no response");
          }
        };

    assertThat(byName.signal(broken)).isNull();
  }

  @Test
  void theClassNamesAreStillRecognisedWithoutAStatus() {
    class RateLimitException extends RuntimeException {
      private static final long serialVersionUID = 1L;
    }

    assertThat(byName.signal(new RuntimeException(new RateLimitException()))).isNotNull();
  }
}
