package io.backpressure.client;

import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.feedback.ProviderSignals;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Receives every answer of the provider to a gated call, so that the caps can follow what the
 * provider reports (its rate-limit headers, its 429s). Called on the thread that received the
 * answer, before the SDK sees it; keep it quick, and do not throw (a thrown exception is logged and
 * ignored). {@link #TO_CALLS_GATE} is the client gate's default.
 */
@FunctionalInterface
public interface ProviderFeedback {

  /** Does nothing: provider feedback turned off. */
  ProviderFeedback NONE = response -> {};

  /**
   * The default: every answer goes to the feedback of the gate its call was admitted by, as {@link
   * #toGate(Gate)} does for one gate, so a 429 and the rate-limit headers adjust that gate's
   * effective caps and its next admissions wait out the provider's retry-after.
   */
  ProviderFeedback TO_CALLS_GATE =
      new ProviderFeedback() {
        @Override
        public void observe(ProviderResponse response) {}

        @Override
        public void observe(ProviderResponse response, @Nullable Grant grant, Gate gate) {
          toGate(gate).observe(response, grant);
        }

        @Override
        public boolean tellsTheGate() {
          return true;
        }

        @Override
        public String toString() {
          return "to each call's gate";
        }
      };

  void observe(ProviderResponse response);

  /**
   * Receives an answer together with the grant its call was admitted with; by default it drops the
   * grant and calls {@link #observe(ProviderResponse)}.
   */
  default void observe(ProviderResponse response, @Nullable Grant grant) {
    observe(response);
  }

  /**
   * Receives an answer with its grant and the gate that admitted the call. The client gate calls
   * this one; by default it calls {@link #observe(ProviderResponse, Grant)}.
   */
  default void observe(ProviderResponse response, @Nullable Grant grant, Gate gate) {
    observe(response, grant);
  }

  /**
   * Whether this feedback hands answers to the call's gate ({@link #TO_CALLS_GATE}, {@link
   * #toGate}, or a chain with one of them). Only then does the gated transport turn a 429, or a
   * refusal the provider's signals read as a stop (a spent daily quota or spend limit), into a new
   * admission (the gate, told, defers the call or refuses it until the reset); otherwise the
   * refusal reaches the SDK as it is.
   */
  default boolean tellsTheGate() {
    return false;
  }

  /** This feedback, then {@code next}, for every answer (its grant and gate passed on too). */
  default ProviderFeedback andThen(ProviderFeedback next) {
    ProviderFeedback first = this;
    Objects.requireNonNull(next, "next");
    return new ProviderFeedback() {
      @Override
      public void observe(ProviderResponse response) {
        first.observe(response);
        next.observe(response);
      }

      @Override
      public void observe(ProviderResponse response, @Nullable Grant grant) {
        first.observe(response, grant);
        next.observe(response, grant);
      }

      @Override
      public void observe(ProviderResponse response, @Nullable Grant grant, Gate gate) {
        first.observe(response, grant, gate);
        next.observe(response, grant, gate);
      }

      @Override
      public boolean tellsTheGate() {
        return first.tellsTheGate() || next.tellsTheGate();
      }
    };
  }

  /**
   * Hands every answer to {@code gate}'s provider feedback ({@link Gate#feedback}): its status,
   * rate-limit headers and error body, parsed by {@link ProviderSignals#parse}, adjust the gate's
   * effective caps. The call's grant goes with it, so the gate counts what the call debited as its
   * own traffic and does not take it for traffic from outside. A 429 that states no retry-after and
   * no reset is taken as one of {@link RateLimits#ASSUMED_RETRY_AFTER}.
   */
  static ProviderFeedback toGate(Gate gate) {
    return new ProviderFeedback() {
      @Override
      public boolean tellsTheGate() {
        return true;
      }

      @Override
      public void observe(ProviderResponse response) {
        observe(response, null);
      }

      @Override
      public void observe(ProviderResponse response, @Nullable Grant grant) {
        gate.feedback(
            grant,
            RateLimits.withRetryAfter(
                ProviderSignals.parse(
                    response.statusCode(),
                    response.headers(),
                    response.body(),
                    Instant.now(),
                    response.midStream())));
      }
    };
  }
}
