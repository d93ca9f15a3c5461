package io.backpressure.integration;

/**
 * The gate did not admit a framework call. Outside a Temporal activity a decorated call that is not
 * admitted throws one of the three subtypes, before any traffic reaches the provider; callers
 * switch on it:
 *
 * <pre>{@code
 * try {
 *   return model.chat(request);
 * } catch (AdmissionDeferredException e) {
 *   scheduleRetry(e.retryAfter(), context.withBooking(e.booking()));
 * }
 * }</pre>
 *
 * <p>Inside a Temporal activity the calls end the activity the way {@code ActivityGate} does
 * instead, so the workflow waits on a durable timer.
 */
public abstract sealed class AdmissionException extends RuntimeException
    permits AdmissionDeferredException, AdmissionExpiredException, AdmissionRejectedException {
  private static final long serialVersionUID = 1L;

  AdmissionException(String message) {
    super(message);
  }
}
