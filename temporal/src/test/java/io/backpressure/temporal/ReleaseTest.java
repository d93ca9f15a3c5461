package io.backpressure.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every admitted call is released exactly once: on success, on an HTTP error, on cancellation. */
class ReleaseTest extends HarnessTest {
  private static RecordingGate gate() {
    return new RecordingGate(
        InMemoryGate.create(
            Policy.builder("test")
                .requestsPerSecond(100)
                .tokensPerSecond(10_000)
                .priority("P1", 1)
                .build()));
  }

  private static String run(Gate gate, Class<? extends ChatWorkflow> workflow, String mode) {
    String queue = "q-" + UUID.randomUUID();
    harness.start(
        queue,
        BackpressureInterceptor.transparent(Duration.ofMinutes(1)),
        1,
        new ChatActivitiesImpl(ActivityGate.of(gate), new Probe(), Duration.ZERO),
        workflow);
    return harness
        .workflow(queue, "wf-" + UUID.randomUUID())
        .chat(new ChatInput("a", "P1", 400, mode), 60_000);
  }

  private static RecordingGate.Release onlyRelease(RecordingGate gate) {
    assertThat(gate.attempts).hasSize(1);
    Admission.Admitted admitted = (Admission.Admitted) gate.attempts.get(0).admission();
    assertThat(gate.releases).hasSize(1);
    RecordingGate.Release release = gate.releases.get(0);
    assertThat(release.grant()).isEqualTo(admitted.grant());
    assertThat(release.applied()).isTrue();
    return release;
  }

  @Test
  void releasesTheTrueUsageOnSuccess() {
    RecordingGate gate = gate();
    assertThat(run(gate, Workflows.Plain.class, "ok")).isEqualTo("ok:a");
    assertThat(onlyRelease(gate).actual()).isEqualTo(Cost.requests(1).tokens(200));
  }

  @Test
  void releasesTheRequestAndNoTokensOnAnHttpError() {
    RecordingGate gate = gate();
    assertThat(run(gate, Workflows.Plain.class, "error"))
        .isEqualTo("failed:java.io.IOException:RETRY_STATE_NON_RETRYABLE_FAILURE");
    assertThat(onlyRelease(gate).actual()).isEqualTo(Cost.requests(1).tokens(0));
  }

  @Test
  void aGateWhoseStateCannotAnswer_letsTheCallProceed_insteadOfFailingTheActivity() {
    Gate down =
        new Gate() {
          @Override
          public String target() {
            return "test";
          }

          @Override
          public Admission admit(AdmissionRequest request) {
            throw new IllegalStateException("Redis did not answer");
          }

          @Override
          public boolean release(Grant grant, Cost actual) {
            throw new IllegalStateException("Redis did not answer");
          }
        };
    assertThat(run(down, Workflows.Plain.class, "ok")).isEqualTo("ok:a");
  }

  @Test
  void aCallLongerThanTheHeartbeatTimeout_isKeptAliveByTheGate_andRunsAndIsReleasedOnce() {
    RecordingGate gate = gate();
    assertThat(run(gate, Workflows.TwoAttempts.class, "slow")).isEqualTo("ok:a");
    assertThat(onlyRelease(gate).actual()).isEqualTo(Cost.requests(1).tokens(200));
  }

  @Test
  void releasesWhenTheActivityIsCancelled() {
    RecordingGate gate = gate();
    assertThat(run(gate, Workflows.Cancelling.class, "hang")).startsWith("failed:CanceledFailure:");
    assertThat(onlyRelease(gate).actual()).isEqualTo(Cost.requests(1).tokens(0));
  }
}
