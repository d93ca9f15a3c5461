package io.backpressure.eval.sim;

import io.backpressure.core.EpochClock;
import io.backpressure.core.RejectReason;
import io.backpressure.core.Ticker;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a configuration's activity can do while it holds a worker slot in the simulator. Every
 * method runs on the simulation's single thread, at the current virtual instant.
 */
interface ActivityContext {

  /** The current virtual time, nanoseconds since the run's start. */
  long now();

  /** The virtual clock, for a gate driven in virtual time. */
  Ticker clock();

  /**
   * The calendar in virtual time: the workload's {@code start_at} advanced by the virtual clock, in
   * nanoseconds since the Unix epoch, for a gate's calendar windows and quotas.
   */
  EpochClock calendar();

  /**
   * Runs {@code action} after {@code delayNanos} (the slot stays held: an in-activity wait). If the
   * caller gave {@code call} up meanwhile, the activity ends there instead (slot freed).
   */
  void after(SimCall call, long delayNanos, Runnable action);

  /**
   * Sends the call upstream now. {@code onReply} receives the answer: a 200 or a 500 after the
   * service latency, a 429 at once (as a separate event). Every method below, called for a call its
   * caller has already given up, only ends the activity (frees its slot).
   */
  void send(SimCall call, Consumer<Reply> onReply);

  /** The call succeeded: the activity ends, its slot is freed, its workflow moves on. */
  void succeed(SimCall call);

  /** The call failed for good: the activity ends, its slot is freed, its workflow moves on. */
  void fail(SimCall call);

  /**
   * The gate refused the call for good ({@code Admission.Rejected}) with {@code reason}: the
   * activity ends, its slot is freed, the call has failed and its workflow moves on.
   *
   * @param resetAtNanos when the limit that refused it resets, in virtual time; -1 when never
   */
  void reject(SimCall call, RejectReason reason, long resetAtNanos);

  /**
   * The gate refused the call for its deadline ({@code Admission.Expired}): the activity ends, its
   * slot is freed, the call is expired and its workflow moves on.
   */
  void expire(SimCall call);

  /**
   * The activity ends at once (slot freed) and the workflow sleeps {@code sleepNanos} on a durable
   * timer, then dispatches the activity again. Counts one deferral.
   */
  void defer(SimCall call, long sleepNanos);

  /** The activity ends at once (slot freed) and is dispatched again (an activity retry). */
  void retry(SimCall call);

  /** A draw from [0, 1) of the run's jitter stream. */
  double jitter();

  /**
   * An upstream answer.
   *
   * @param status 200, 429 (rate limited) or 500 (an error unrelated to limits)
   * @param retryAfterNanos on a 429, the provider's retry-after
   * @param boundDimension on a 429, {@code requests} or {@code tokens}
   * @param headers the provider's rate-limit headers, as the mock provider writes them ({@link
   *     SimUpstream}); empty on a 500
   * @param body on a 429 the provider's error body, else null
   */
  record Reply(
      int status,
      long retryAfterNanos,
      String boundDimension,
      Map<String, String> headers,
      String body) {

    boolean ok() {
      return status == 200;
    }
  }
}
