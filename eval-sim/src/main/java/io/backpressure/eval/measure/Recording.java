package io.backpressure.eval.measure;

import io.backpressure.core.RejectReason;
import java.util.List;
import java.util.Map;

/**
 * Everything one run produced, in nanoseconds since the run's start: every upstream attempt and
 * every logical call (eval/README.md, metrics). Both the simulator and a real-mode runner produce
 * one through a {@link Recorder}; {@link Metrics} turns it into numbers.
 *
 * @param endNanos the run's length
 * @param attempts every upstream attempt, in the order they reached the upstream
 * @param calls every logical call that was submitted, in submission order
 * @param queueFinishedNanos per tenant (workload order): when it finished all its calls, or -1
 * @param measured what a real run measured on the wall clock; null for a simulated run
 */
public record Recording(
    long endNanos,
    List<Attempt> attempts,
    List<Call> calls,
    long[] queueFinishedNanos,
    Measured measured) {

  /** A simulated run: nothing measured on the wall clock. */
  Recording(long endNanos, List<Attempt> attempts, List<Call> calls, long[] queueFinishedNanos) {
    this(endNanos, attempts, calls, queueFinishedNanos, null);
  }

  /**
   * Wall-clock quantities of a real run, one sample per event, in nanoseconds.
   *
   * @param admissionNanos the duration of each admission call (empty when no gate ran)
   * @param timerExcessNanos per deferral: the re-run's start minus the instant its durable timer
   *     was due (timer lateness, dispatch, and any wait for a slot)
   * @param scheduleToStartNanos per activity execution: its start minus its scheduling (millisecond
   *     resolution; dispatch plus any wait for a slot)
   * @param rejectionRoundTripNanos per 429: the client-side HTTP round trip (the provider answers a
   *     429 at once)
   * @param cpuUtilization CPU time of every process of the run / (wall time × processors)
   * @param slots the worker slots of all workers together
   * @param upstreamMaxPerWindow per capped dimension: the most that reached the provider within any
   *     window of one upstream period, from the provider's own records ({@link UpstreamWindows})
   * @param upstreamWindowBound per capped dimension: cap × period + the gate's burst
   * @param failedOpenAdmissions admissions let through ungated because the shared state did not
   *     answer
   * @param workersLost worker processes that died during the run (their ledgers are lost)
   * @param faultWindows what the run's faults did at the provider; null for a run without faults
   */
  public record Measured(
      long[] admissionNanos,
      long[] timerExcessNanos,
      long[] scheduleToStartNanos,
      long[] rejectionRoundTripNanos,
      double cpuUtilization,
      int slots,
      Map<String, Double> upstreamMaxPerWindow,
      Map<String, Double> upstreamWindowBound,
      long failedOpenAdmissions,
      int workersLost,
      FaultWindows.Result faultWindows) {}

  /**
   * What became of a logical call: answered, failed for a reason other than its deadline, expired
   * (refused by the gate for its deadline, or given up by its caller at the deadline), or still
   * running when the run ended.
   */
  public enum Outcome {
    OK,
    FAILED,
    EXPIRED,
    UNFINISHED
  }

  /**
   * One upstream attempt.
   *
   * @param queue the tenant's index in the workload
   * @param startNanos when it reached the upstream
   * @param endNanos when its answer came back (a 429 comes back at once)
   * @param status the HTTP status: 200, 429 (rate limited) or 500 (an error unrelated to limits)
   * @param boundDimension on a 429, the dimension that bound; null otherwise
   * @param tokens the tokens the call carried (prompt plus completion)
   * @param counted whether the upstream counted it against its window (every 200; a 429 only with
   *     {@code rejected_count})
   * @param promptTokens the prompt's share of {@code tokens} (the rest is the completion), or -1
   *     when the run did not record it
   */
  public record Attempt(
      int queue,
      long startNanos,
      long endNanos,
      int status,
      String boundDimension,
      double tokens,
      boolean counted,
      double promptTokens) {

    /** An attempt whose prompt and completion tokens were not told apart. */
    public Attempt(
        int queue,
        long startNanos,
        long endNanos,
        int status,
        String boundDimension,
        double tokens,
        boolean counted) {
      this(queue, startNanos, endNanos, status, boundDimension, tokens, counted, -1);
    }

    public boolean ok() {
      return status == 200;
    }

    public boolean rateLimited() {
      return status == 429;
    }
  }

  /**
   * One logical call.
   *
   * @param queue the tenant's index in the workload
   * @param submittedNanos when its workflow (or arrival) submitted it
   * @param finishedNanos when it ended, or -1 if still running at the end of the run
   * @param outcome what became of it
   * @param slotHeldNanos worker-slot time it held, up to the end of the run
   * @param deferrals how many times the gate deferred it onto a timer
   * @param attempts how many upstream attempts it made
   * @param firstAttemptNanos when its first upstream attempt was sent, or -1 if it made none
   * @param rejectReason why the gate refused it for good ({@link Outcome#FAILED} with the gate's
   *     {@code Admission.Rejected}), or null
   * @param resetAtNanos for a call the gate refused until a limit resets ({@link
   *     RejectReason#LIMIT_REACHED}, {@link RejectReason#QUOTA_EXHAUSTED}), when it resets; else -1
   */
  public record Call(
      int queue,
      long submittedNanos,
      long finishedNanos,
      Outcome outcome,
      long slotHeldNanos,
      int deferrals,
      int attempts,
      long firstAttemptNanos,
      RejectReason rejectReason,
      long resetAtNanos) {

    /** A call the gate did not refuse for good. */
    public Call(
        int queue,
        long submittedNanos,
        long finishedNanos,
        Outcome outcome,
        long slotHeldNanos,
        int deferrals,
        int attempts,
        long firstAttemptNanos) {
      this(
          queue,
          submittedNanos,
          finishedNanos,
          outcome,
          slotHeldNanos,
          deferrals,
          attempts,
          firstAttemptNanos,
          null,
          -1);
    }
  }
}
