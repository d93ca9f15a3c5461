package io.backpressure.temporal;

import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.feedback.ProviderSignal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider answers one gated call reported, handed to the gate after the call's release. Used
 * by one activity thread at a time.
 */
final class ReportedAnswers implements ActivityGate.Answers {
  private static final Logger log = LoggerFactory.getLogger(ReportedAnswers.class);

  private final List<ProviderSignal> signals = new ArrayList<>();
  private @Nullable Cost used;

  @Override
  public void report(ProviderSignal signal) {
    signals.add(Objects.requireNonNull(signal, "signal"));
  }

  /** {@code usage}, remembering what it returned: the provider's count for the last answer. */
  <R> Function<R, Cost> recording(Function<? super R, Cost> usage) {
    return reply -> used = usage.apply(reply);
  }

  /**
   * Gives every reported answer to {@code gate}, the last with the call's usage; never throws, so
   * that feedback cannot mask the call's own outcome.
   */
  void deliver(Gate gate, Grant grant) {
    for (int i = 0; i < signals.size(); i++) {
      ProviderSignal signal = signals.get(i);
      try {
        gate.feedback(
            grant, i == signals.size() - 1 && used != null ? signal.withUsage(used) : signal);
      } catch (RuntimeException e) {
        log.warn("the gate could not take the provider's answer to grant {}", grant.id(), e);
      }
    }
  }
}
