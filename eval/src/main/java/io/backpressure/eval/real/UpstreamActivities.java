package io.backpressure.eval.real;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The provider call of one logical call, made over HTTP from a worker slot. */
@ActivityInterface
public interface UpstreamActivities {

  /**
   * Ends with the call's 200. Depending on the configuration it retries 429s on the slot, waits in
   * a proxy, or is deferred by the gate (an {@code ApplicationFailure} of type {@code
   * BackpressureDeferred}) or ends with an {@value #UPSTREAM_429} or {@value #UPSTREAM_500} failure
   * for the workflow to retry through the gate.
   *
   * @return the HTTP status of the successful attempt (200)
   */
  @ActivityMethod
  int call(CallInput input);

  /** The failure type of a gated call the provider answered with 429. Non-retryable. */
  String UPSTREAM_429 = "Upstream429";

  /**
   * The failure type of a gated call the provider answered with a 5xx (an error unrelated to rate
   * limits; the grant was released). Non-retryable: the workflow retries it through the gate.
   */
  String UPSTREAM_500 = "Upstream500";
}
