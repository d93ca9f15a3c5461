package io.backpressure.temporal;

import io.backpressure.core.Cost;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.time.Duration;

/**
 * Test activities: a simulated provider behind {@link ActivityGate}, watched by a {@link Probe}.
 */
final class ChatActivitiesImpl implements ChatActivities {
  private final ActivityGate gate;
  private final Probe probe;
  private final Duration naiveBackoff;

  ChatActivitiesImpl(ActivityGate gate, Probe probe, Duration naiveBackoff) {
    this.gate = gate;
    this.probe = probe;
    this.naiveBackoff = naiveBackoff;
  }

  @Override
  public String chat(ChatInput input) {
    probe.enter();
    boolean rerun = isRerun();
    try {
      if (input.mode().equals("naive")) {
        return naive(input);
      }
      return gate.call(input, () -> provider(input.mode(), input.tenant()), reply -> usage(input));
    } catch (ApplicationFailure failure) {
      if (Backpressure.DEFERRED.equals(failure.getType())) {
        probe.deferred(rerun);
      }
      throw failure;
    } finally {
      probe.exit();
    }
  }

  /** Whether this attempt runs again after a deferral, timed by the workflow or by the server. */
  private static boolean isRerun() {
    return ActivityGate.carriedBooking(
            ActivityScope.current(), ServerDeferral.read(Activity.getExecutionContext()))
        != null;
  }

  @Override
  public String chatByPriority(String mode) {
    probe.enter();
    try {
      return gate.call(
          Cost.requests(1), () -> provider(mode, "priority"), reply -> Cost.requests(1));
    } finally {
      probe.exit();
    }
  }

  private String naive(ChatInput input) {
    try {
      long until = System.nanoTime() + naiveBackoff.toNanos();
      while (System.nanoTime() < until) {
        Activity.getExecutionContext().heartbeat(null);
        Thread.sleep(50);
      }
      return "ok:" + input.tenant();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw Activity.wrap(e);
    }
  }

  /** The provider reports half the estimated tokens as used, so reconciliation is visible. */
  private static Cost usage(ChatInput input) {
    return input.tokens() > 0 ? Cost.requests(1).tokens(input.tokens() / 2.0) : Cost.requests(1);
  }

  @SuppressWarnings("StatementSwitchToExpressionSwitch") // a case that never ends reads plainer so
  private static String provider(String mode, String tenant) throws Exception {
    switch (mode) {
      case "ok":
        return "ok:" + tenant;
      case "error":
        throw new IOException("HTTP 500 from the provider");
      case "slow":
        // Longer than the activities' heartbeat timeout, without a heartbeat of its own, as a
        // blocking HTTP call is.
        Thread.sleep(5_000);
        return "ok:" + tenant;
      case "hang":
        while (true) {
          Activity.getExecutionContext().heartbeat(null);
          Thread.sleep(50);
        }
      default:
        throw new IllegalArgumentException("mode " + mode);
    }
  }
}
