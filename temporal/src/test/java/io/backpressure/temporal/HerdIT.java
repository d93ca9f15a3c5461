package io.backpressure.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.testing.WindowPeak;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Many deferred calls must not wake together and be deferred again: the booking a deferral carries
 * books the call's turn, and the re-run redeems it, and the few milliseconds a redeemed call may
 * still have to wait are waited out on the slot. A small cross-priority workload against the real
 * in-memory gate: three classes, two tenants each, three closed-loop workflows per tenant, every
 * class backlogged. Counts, not times, are asserted: re-deferrals per admitted call, the class
 * order of admissions while all queues are backlogged, and admissions in any one-second window.
 */
class HerdIT extends HarnessTest {
  private static final double CAP = 10;
  private static final double BURST = 2;

  /**
   * Calls per workflow: 72 admitted calls per run. Most re-deferrals fall in the first second, when
   * all eighteen workflows start at once; with two calls per workflow (36 admitted), booked
   * re-deferrals per admitted call ranged 0.64 to 1.00 from one run to the next on one machine, and
   * 0.40 to 0.78 with four.
   */
  private static final int CALLS = 4;

  /**
   * A redeemed booking may still wait up to about one token interval (1/CAP = 100 ms here) for the
   * global bucket; waiting that out on the slot is cheaper than another round trip.
   */
  private static final Duration WAIT_IN_PLACE = Duration.ofMillis(150);

  private static final int WORKFLOWS_PER_TENANT = 3;

  record Result(
      double deferralsPerOk, double redeferralsPerOk, int[] okByClass, int maxPerSecond) {}

  private static Gate bookingGate() {
    return InMemoryGate.create(
        Policy.builder("herd")
            .dimension("requests", CAP, BURST)
            .priority("P1", 0.5)
            .priority("P2", 0.3)
            .priority("P3", 0.2)
            .build());
  }

  private static Result crossPriority(
      BackpressureInterceptor interceptor, Gate delegate, Duration waitInPlace) {
    RecordingGate gate = new RecordingGate(delegate);
    String queue = "q-" + UUID.randomUUID();
    Probe probe = new Probe();
    ActivityGate activityGate = ActivityGate.builder(gate).waitInPlace(waitInPlace).build();
    harness.start(
        queue,
        interceptor,
        16,
        new ChatActivitiesImpl(activityGate, probe, Duration.ZERO),
        LoopWorkflow.Impl.class);
    List<WorkflowStub> runs = new ArrayList<>();
    String[] classes = {"P1", "P2", "P3"};
    for (int k = 0; k < 3; k++) {
      for (int tenant = 0; tenant < 2; tenant++) {
        for (int w = 0; w < WORKFLOWS_PER_TENANT; w++) {
          LoopWorkflow workflow =
              harness
                  .client()
                  .newWorkflowStub(
                      LoopWorkflow.class,
                      WorkflowOptions.newBuilder()
                          .setTaskQueue(queue)
                          .setWorkflowId("loop-" + UUID.randomUUID())
                          .build());
          WorkflowClient.start(
              workflow::run, ChatInput.ok(classes[k] + "-" + tenant, classes[k]), CALLS);
          runs.add(WorkflowStub.fromTyped(workflow));
        }
      }
    }
    for (WorkflowStub run : runs) {
      assertThat(run.getResult(Integer.class)).isEqualTo(CALLS);
    }
    // Admissions per class until the first tenant (a P1 one, if the order holds) is done.
    List<RecordingGate.Attempt> admitted =
        gate.attempts.stream().filter(a -> a.admission() instanceof Admission.Admitted).toList();
    int[] perTenant = new int[6];
    int[] okByClass = new int[3];
    for (RecordingGate.Attempt a : admitted) {
      int k = Arrays.asList(classes).indexOf(a.request().priority());
      int t = 2 * k + (a.request().tenant().endsWith("0") ? 0 : 1);
      okByClass[k]++;
      if (++perTenant[t] == WORKFLOWS_PER_TENANT * CALLS) {
        break;
      }
    }
    int maxPerSecond =
        WindowPeak.maxCount(
            admitted.stream().map(RecordingGate.Attempt::atMillis).sorted().toList(), 1000);
    Result result =
        new Result(
            (double) probe.deferrals() / gate.admitted(),
            (double) probe.redeferrals() / gate.admitted(),
            okByClass,
            maxPerSecond);
    System.out.printf(
        "herd gate=%s interceptor=%s deferrals_per_ok=%.2f redeferrals_per_ok=%.2f"
            + " ok_by_class=%s max_per_1s=%d%n",
        delegate.target(),
        interceptor != null,
        result.deferralsPerOk(),
        result.redeferralsPerOk(),
        Arrays.toString(okByClass),
        maxPerSecond);
    return result;
  }

  /**
   * What the temporal side must not spoil: the cap holds in every one-second window, and the class
   * order holds between the outer classes while all are backlogged.
   */
  private static void assertCapAndOrder(Result result) {
    assertThat((double) result.maxPerSecond()).isLessThanOrEqualTo(CAP + BURST);
    assertThat(result.okByClass()[0]).isGreaterThan(result.okByClass()[2]);
  }

  /**
   * The plain bucket has no classes, so only the cap applies to it. The stampede is counted in
   * re-deferrals, deferrals of calls that had already been deferred and woken: every call that
   * finds the cap spent is deferred once under either gate, and how many of the woken calls collide
   * again depends on how closely the machine fires their timers together. Under the plain bucket
   * most woken calls are deferred again; under bookings at most half as many are, and fewer than
   * one per admitted call.
   */
  private static void assertStampede(Result plain, Result booked) {
    assertThat((double) plain.maxPerSecond()).isLessThanOrEqualTo(CAP + BURST);
    assertThat(plain.redeferralsPerOk()).isGreaterThan(1);
    assertThat(booked.redeferralsPerOk()).isLessThan(Math.min(1.0, plain.redeferralsPerOk() / 2));
  }

  @Test
  void workflowTimedDeferralsRedeemTheirBookingsInsteadOfStampeding() {
    BackpressureInterceptor interceptor =
        BackpressureInterceptor.transparent(Duration.ofMinutes(1));
    Result plain = crossPriority(interceptor, new PlainBucketGate(CAP, BURST), Duration.ZERO);
    Result booked = crossPriority(interceptor, bookingGate(), WAIT_IN_PLACE);
    assertStampede(plain, booked);
    assertCapAndOrder(booked);
  }

  @Test
  void serverTimedDeferralsRedeemTheirBookingsInsteadOfStampeding() {
    Result plain = crossPriority(null, new PlainBucketGate(CAP, BURST), Duration.ZERO);
    Result booked = crossPriority(null, bookingGate(), WAIT_IN_PLACE);
    assertStampede(plain, booked);
    assertCapAndOrder(booked);
  }
}
