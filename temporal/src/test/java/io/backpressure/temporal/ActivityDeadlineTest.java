package io.backpressure.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An activity's timeouts are its call's deadline: under an adaptive concurrency limit whose
 * measured latency its start-to-close does not cover, the call is not sent; a call whose turn comes
 * after its attempt's end asks again with its schedule-to-close alone; a deferred call resumes with
 * what is left of its schedule-to-close, whichever way it waits. The gates' clocks are virtual and
 * the timeouts minutes long, so a loaded machine changes no outcome.
 */
class ActivityDeadlineTest extends HarnessTest {

  private static final Cost ONE = Cost.requests(1);

  /**
   * A gate under an adaptive concurrency limit that measured a 10 min latency and has one call in
   * flight, so that a call whose deadline is shorter is answered {@code Expired} (no probe).
   */
  private static RecordingGate slowTarget() {
    ManualClock clock = new ManualClock(1_700_000_000L * 1_000_000_000L);
    Gate gate =
        InMemoryGate.create(
            Policy.builder("test/model")
                .dimension("requests", 100_000, 100_000)
                .priority("P1", 1)
                .adaptiveConcurrency(4, 64, Duration.ofMinutes(30), Duration.ofMinutes(15))
                .build(),
            clock);
    Grant first = admitted(gate.admit(AdmissionRequest.of("other", "P1", ONE)));
    clock.advance(Duration.ofMinutes(10));
    gate.release(first, ONE);
    admitted(gate.admit(AdmissionRequest.of("other", "P1", ONE)));
    return new RecordingGate(gate);
  }

  private static Grant admitted(Admission answer) {
    assertThat(answer).isInstanceOf(Admission.Admitted.class);
    return ((Admission.Admitted) answer).grant();
  }

  private static String run(
      RecordingGate gate,
      BackpressureInterceptor interceptor,
      Class<? extends ChatWorkflow> workflow,
      Duration maxWait) {
    String queue = "q-" + UUID.randomUUID();
    harness.start(
        queue,
        interceptor,
        2,
        new ChatActivitiesImpl(
            ActivityGate.builder(gate).maxWait(maxWait).build(), new Probe(), Duration.ZERO),
        workflow);
    // The server caps an activity's timeouts at its workflow's: give it more than the hour below.
    return harness
        .client()
        .newWorkflowStub(
            ChatWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(queue)
                .setWorkflowId("wf-" + UUID.randomUUID())
                .setWorkflowExecutionTimeout(Duration.ofHours(2))
                .build())
        .chat(ChatInput.ok("a", "P1"), maxWait.toMillis());
  }

  /**
   * A start-to-close of 2 min against a measured 10 min: expired before the provider is called; 20
   * min covers it and the call goes. Mutation tried: the activity's timeouts not read (the 2 min
   * call is admitted and sent).
   */
  @Test
  void aStartToCloseShorterThanTheMeasuredLatencyIsNotSent() {
    RecordingGate gate = slowTarget();
    String outcome = run(gate, null, StartToClose2Min.class, Duration.ofMinutes(10));

    assertThat(outcome).startsWith("failed:" + Backpressure.EXPIRED);
    assertThat(gate.attempts).hasSize(1);
    RecordingGate.Attempt attempt = gate.attempts.get(0);
    assertThat(attempt.admission()).isInstanceOf(Admission.Expired.class);
    assertThat(((Admission.Expired) attempt.admission()).message()).contains("take 600000 ms");
    assertThat(attempt.request().deadline())
        .isPositive()
        .isLessThanOrEqualTo(Duration.ofMinutes(2));
    assertThat(gate.admitted()).as("never admitted, so never sent").isZero();

    RecordingGate covered = slowTarget();
    assertThat(run(covered, null, StartToClose20Min.class, Duration.ofMinutes(10)))
        .isEqualTo("ok:a");
    assertThat(covered.attempts)
        .singleElement()
        .satisfies(a -> assertThat(a.admission()).isInstanceOf(Admission.Admitted.class));
  }

  /**
   * A turn 10 min away, after the attempt's 1 min start-to-close but within the hour of its
   * schedule-to-close: expired for this attempt, then asked again with the hour, and deferred (the
   * workflow's 1 min bound then ends it). Mutation tried: no second ask (one attempt, expired).
   */
  @Test
  void aTurnAfterTheAttemptsEndIsAskedAgainWithTheWholeCallsDeadline() {
    ManualClock clock = new ManualClock(1_700_000_000L * 1_000_000_000L);
    RecordingGate gate =
        new RecordingGate(
            InMemoryGate.create(
                Policy.builder("test/model")
                    .dimension("requests", 1.0 / 600, 1)
                    .priority("P1", 1)
                    .build(),
                clock));
    admitted(gate.admit(AdmissionRequest.of("other", "P1", ONE)));
    gate.attempts.clear();

    String outcome =
        run(
            gate,
            BackpressureInterceptor.create(),
            AnHourInAttemptsOf1Min.class,
            Duration.ofMinutes(1));

    assertThat(outcome).startsWith("failed:" + Backpressure.EXPIRED);
    List<RecordingGate.Attempt> attempts = gate.attempts;
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(0).admission()).isInstanceOf(Admission.Expired.class);
    assertThat(attempts.get(0).request().deadline()).isLessThanOrEqualTo(Duration.ofMinutes(1));
    assertThat(attempts.get(1).admission()).isInstanceOf(Admission.Deferred.class);
    assertThat(attempts.get(1).request().deadline())
        .isGreaterThan(Duration.ofMinutes(50))
        .isLessThanOrEqualTo(Duration.ofHours(1));
  }

  /**
   * Deferred 300 ms, the call runs again with its schedule-to-close's end, not a new one: its
   * deadline is at least the 300 ms shorter. Mutation tried: the workflow does not hand the end to
   * the next run (ways 1 and 2 start a fresh 20 s).
   */
  @ParameterizedTest
  @EnumSource(DeferralWay.class)
  void aDeferredCallResumesWithWhatIsLeftOfItsDeadline(DeferralWay way) {
    RecordingGate gate = new RecordingGate(ScriptedGate.deferOnce("a", Duration.ofMillis(300)));
    Duration maxWait = Duration.ofSeconds(10);

    Class<? extends ChatWorkflow> workflow =
        way.workflow(HelperWithin20s.class, PlainWithin20s.class);
    assertThat(run(gate, way.interceptor(maxWait), workflow, maxWait)).isEqualTo("ok:a");

    List<RecordingGate.Attempt> attempts = gate.attempts;
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(0).admission()).isInstanceOf(Admission.Deferred.class);
    assertThat(attempts.get(1).admission()).isInstanceOf(Admission.Admitted.class);
    Duration first = attempts.get(0).request().deadline();
    assertThat(first).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
    assertThat(attempts.get(1).request().deadline())
        .isLessThanOrEqualTo(first.minusMillis(300))
        .isGreaterThanOrEqualTo(Duration.ZERO);
  }

  private static ChatActivities activities(Duration startToClose, Duration scheduleToClose) {
    ActivityOptions.Builder options =
        ActivityOptions.newBuilder(Workflows.options(0)).setStartToCloseTimeout(startToClose);
    if (scheduleToClose != null) {
      options.setScheduleToCloseTimeout(scheduleToClose);
    }
    return Workflow.newActivityStub(ChatActivities.class, options.build());
  }

  /** Attempts of at most 2 min, any number of them. */
  public static final class StartToClose2Min implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      return Workflows.plain(activities(Duration.ofMinutes(2), null), input);
    }
  }

  /** Attempts of at most 20 min. */
  public static final class StartToClose20Min implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      return Workflows.plain(activities(Duration.ofMinutes(20), null), input);
    }
  }

  /** An hour in all, attempts of at most 1 min, deferrals waited out by the helper. */
  public static final class AnHourInAttemptsOf1Min implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      return Workflows.helper(
          activities(Duration.ofMinutes(1), Duration.ofHours(1)), input, maxWaitMillis);
    }
  }

  /** 20 s in all, deferrals waited out by the helper. */
  public static final class HelperWithin20s implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      return Workflows.helper(
          activities(Duration.ofSeconds(20), Duration.ofSeconds(20)), input, maxWaitMillis);
    }
  }

  /** 20 s in all, no backpressure code: the transparent interceptor or the server's retry timer. */
  public static final class PlainWithin20s implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      return Workflows.plain(activities(Duration.ofSeconds(20), Duration.ofSeconds(20)), input);
    }
  }
}
