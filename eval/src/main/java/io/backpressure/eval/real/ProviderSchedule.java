package io.backpressure.eval.real;

import io.backpressure.eval.workload.Workload;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.limit.Caps;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Applies a workload's {@code upstream.schedule} to the running mock provider of one real run: at
 * each entry's {@code at_s} after the run's origin it sets the provider's caps ({@link
 * MockProvider#setCaps}), which keeps what the windows already hold (mock-provider/README.md,
 * "Drift, outside traffic and faults"). The provider's own {@code --schedule} counts from its
 * start, which comes before the run's origin by the time the workers take to start, hence a timer
 * on the run's clock instead. Closing it cancels what is still pending and reports a change that
 * failed. Thread-safe.
 */
final class ProviderSchedule implements AutoCloseable {
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "provider-schedule");
            t.setDaemon(true);
            return t;
          });

  private final List<Change> changes = new ArrayList<>();

  /** One entry of the schedule and the timer's handle on it. */
  private record Change(double atS, Future<?> applied) {}

  ProviderSchedule(Workload.Upstream upstream, MockProvider provider, Ledger ledger) {
    for (Workload.CapChange change : upstream.schedule()) {
      Caps caps = new Caps(change.caps().requestsPerS(), change.caps().tokensPerS());
      long delay = Math.max(0, Workload.nanos(change.atS()) - ledger.now());
      changes.add(
          new Change(
              change.atS(),
              timer.schedule(() -> provider.setCaps(caps), delay, TimeUnit.NANOSECONDS)));
    }
  }

  /**
   * Cancels the changes still pending.
   *
   * @throws IllegalStateException when a change that came due failed: the run did not face the
   *     upstream its workload describes
   */
  @Override
  public void close() {
    timer.shutdownNow();
    for (Change change : changes) {
      if (change.applied().isDone() && !change.applied().isCancelled()) {
        try {
          change.applied().get();
        } catch (ExecutionException e) {
          throw new IllegalStateException(
              "the provider's caps due at " + change.atS() + " s could not be set", e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
