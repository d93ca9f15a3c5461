package io.backpressure.eval.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.core.Dimension;
import io.backpressure.core.Policy;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.Workload;
import io.backpressure.eval.workload.Workloads;
import org.junit.jupiter.api.Test;

/**
 * The estimate and reservation ablations (eval/README.md, "Noisy estimates and reservation:
 * ablations").
 */
class TokenEstimateTest {

  private static final Workload NOISY = Workloads.load("noisy-estimates").withDuration(10);
  private static final Workload RESERVATION = Workloads.load("reservation").withDuration(10);

  private static long rateLimitedInFirstWindow(Recording r) {
    return r.attempts().stream()
        .filter(a -> a.rateLimited() && a.startNanos() < 1_000_000_000L)
        .count();
  }

  private static long rateLimited(Recording r) {
    return r.attempts().stream().filter(Recording.Attempt::rateLimited).count();
  }

  private static double tokenBurst(Policy policy) {
    return policy.dimensions().stream()
        .filter(d -> d.name().equals(Dimension.TOKENS))
        .findFirst()
        .orElseThrow()
        .burst();
  }

  @Test
  void theDocumentedEstimateIsThePromptAndTheTenantsLimit() {
    Workload.Tenant tenant = RESERVATION.tenants().get(0);
    assertThat(TokenEstimate.PROMPT.tokens(RESERVATION, tenant, 400, 900)).isEqualTo(400);
    assertThat(TokenEstimate.PROMPT.maxTokens(tenant, 500)).isNull();
    assertThat(TokenEstimate.PROMPT.largestDebit(RESERVATION, tenant)).isEqualTo(400 + 1024);
    assertThat(TokenEstimate.PROMPT.largestDebit(NOISY, NOISY.tenants().get(0))).isEqualTo(400);
  }

  @Test
  void theOracleEstimatesTheTrueTotalOrReservesTheTrueCompletion() {
    assertThat(TokenEstimate.ORACLE.tokens(NOISY, NOISY.tenants().get(0), 400, 900)).isEqualTo(900);
    assertThat(TokenEstimate.ORACLE.tokens(RESERVATION, RESERVATION.tenants().get(0), 400, 900))
        .isEqualTo(400);
    assertThat(TokenEstimate.ORACLE.maxTokens(RESERVATION.tenants().get(0), 500)).isEqualTo(500);
    assertThat(TokenEstimate.ORACLE.maxTokens(RESERVATION.tenants().get(0), 0)).isEqualTo(1);
  }

  @Test
  void theTightReservationTurnsReservationOnAndReservesTheLargestCompletion() {
    Policy policy = GateConfiguration.policy(NOISY, GateConfiguration.Variant.TIGHT_RESERVATION);
    assertThat(policy.reservation()).isTrue();
    assertThat(TokenEstimate.TIGHT_RESERVATION.maxTokens(NOISY.tenants().get(0), 17))
        .isEqualTo(600);
    assertThat(GateConfiguration.policy(NOISY, GateConfiguration.Variant.FULL).reservation())
        .isFalse();
    Workload capped = Workloads.load("reservation-capped");
    assertThat(TokenEstimate.TIGHT_RESERVATION.maxTokens(capped.tenants().get(0), 17))
        .isEqualTo(200);
    assertThat(
            tokenBurst(
                GateConfiguration.policy(capped, GateConfiguration.Variant.TIGHT_RESERVATION)))
        .isEqualTo(12_000);
  }

  @Test
  void theColdStartOverrunsTheFirstWindowOnce_andTheProvidersResetHoldsTheRest() {
    // The first 16 calls are charged their 400-token prompts before any reply teaches the
    // correction, and the provider's first window overflows. Without feedback every call the gate
    // admits into the rest of that window is refused; with it, the first 429's reset holds the
    // tokens until the window resets.
    assertThat(rateLimitedInFirstWindow(SimulationTest.run(NOISY, "bp-static", 1)))
        .isGreaterThan(10);
    assertThat(rateLimitedInFirstWindow(SimulationTest.run(NOISY, "bp", 1))).isLessThanOrEqualTo(1);
    assertThat(rateLimitedInFirstWindow(SimulationTest.run(NOISY, "bp-mean-estimate", 1)))
        .as("told the mean up front, nothing overruns")
        .isLessThanOrEqualTo(1);
  }

  @Test
  void theOracleIsNeverRateLimitedAndHoldsNoReservationBeyondUse() {
    assertThat(rateLimited(SimulationTest.run(NOISY, "bp-oracle", 1))).isZero();
    long[] seeds = {1};
    assertThat(FidelityProbe.probe(RESERVATION, "bp-oracle", seeds).heldShare()).isZero();
    assertThat(FidelityProbe.probe(RESERVATION, "bp", seeds).heldShare()).isGreaterThan(0.05);
  }
}
