package io.backpressure.eval.real;

import io.backpressure.eval.workload.Workload;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.limit.Caps;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Applies a workload's {@code upstream.schedule} to the running mock provider of one real run: at
 * each entry's {@code at_s} after the run's origin it sets the provider's caps ({@link
 * MockProvider#setCaps}), which keeps what the windows already hold (mock-provider/README.md,
 * "Drift, outside traffic and faults"). The provider's own {@code --schedule} counts from its
 * start, which comes before the run's origin by the time the workers take to start, hence a timer
 * on the run's clock instead. Closing it cancels what is still pending. Thread-safe.
 */
final class ProviderSchedule implements AutoCloseable {
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "provider-schedule");
            t.setDaemon(true);
            return t;
          });

  ProviderSchedule(Workload.Upstream upstream, MockProvider provider, Ledger ledger) {
    for (Workload.CapChange change : upstream.schedule()) {
      Caps caps = new Caps(change.caps().requestsPerS(), change.caps().tokensPerS());
      long delay = Math.max(0, Workload.nanos(change.atS()) - ledger.now());
      timer.schedule(() -> provider.setCaps(caps), delay, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
