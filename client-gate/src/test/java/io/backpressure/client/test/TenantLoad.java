package io.backpressure.client.test;

import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Tenants calling a provider through a gated client on the wall clock, each on its own thread, the
 * way a caller without Temporal handles a deferral: it waits the {@code retryAfter} and calls again
 * with the booking. For the integration tests that count the provider's refusals a caller sees.
 */
public final class TenantLoad {

  /** One call of a tenant, made inside its {@link GateContext} scope. */
  @FunctionalInterface
  public interface Call {
    void run(int index) throws Exception;
  }

  /**
   * What a run saw: the calls answered, the provider's refusals that reached a caller, and the
   * gate's deferrals the callers waited out.
   */
  public record Outcome(int answered, int refused, int deferrals) {}

  private TenantLoad() {}

  /**
   * Runs {@code tenants} tenants ({@code tenant-0}, …, priority {@code P1}) making {@code calls}
   * calls each; a call that throws what {@code refusal} accepts (the SDK's 429) is counted and made
   * again.
   *
   * @throws Exception what a call threw that is neither a deferral nor a refusal, or a timeout
   */
  public static Outcome run(
      int tenants, int calls, Predicate<Throwable> refusal, Duration timeout, Call call)
      throws Exception {
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    AtomicInteger deferrals = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(tenants);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < tenants; t++) {
        String tenant = "tenant-" + t;
        running.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < calls; i++) {
                    GateContext caller = GateContext.of(tenant, "P1");
                    while (true) {
                      try (GateContext.Scope scope = caller.open()) {
                        call.run(i);
                        answered.incrementAndGet();
                        break;
                      } catch (DeferredException deferred) {
                        deferrals.incrementAndGet();
                        caller = GateContext.of(tenant, "P1").withBooking(deferred.booking());
                        Thread.sleep(Math.max(1, deferred.retryAfter().toMillis()));
                      } catch (Exception e) {
                        if (!refusal.test(e)) {
                          throw e;
                        }
                        refused.incrementAndGet();
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> tenant : running) {
        tenant.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
      return new Outcome(answered.get(), refused.get(), deferrals.get());
    } finally {
      pool.shutdownNow();
    }
  }
}
