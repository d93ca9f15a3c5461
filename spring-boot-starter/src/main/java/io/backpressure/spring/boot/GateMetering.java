package io.backpressure.spring.boot;

import io.backpressure.core.Gate;
import io.backpressure.core.Policy;
import io.backpressure.core.QuotaAdmin;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Wraps a built gate in meters; present only when Micrometer and the metrics module are. */
@FunctionalInterface
interface GateMetering {

  /**
   * The metered gate around {@code gate}.
   *
   * @param policy where the policy in force is read (for an in-memory gate, the gate reads its own)
   * @param limits where a shared state's limits are read at scrape time; null for an in-memory
   *     gate, which reads its own
   */
  Gate meter(Gate gate, Supplier<Policy> policy, @Nullable LimitSources limits);

  /**
   * A shared state's limits, for the limit meters ({@code backpressure.limit.in.flight}, {@code
   * backpressure.limit.leases.expired}, {@code backpressure.limit.concurrency}, {@code
   * backpressure.quota.used}, {@code backpressure.quota.remaining}).
   *
   * @param inFlight the calls holding a concurrency lease now; may throw while the state is not
   *     reached (the gauge then reads NaN)
   * @param expiredLeases the leases that expired unreleased so far; never throws
   * @param concurrencyLimit the concurrency limit in force (an adaptive one's current value); may
   *     throw while the state is not reached
   * @param quotas each class's quota use; may throw while the state is not reached
   */
  record LimitSources(
      LongSupplier inFlight,
      LongSupplier expiredLeases,
      LongSupplier concurrencyLimit,
      QuotaAdmin quotas) {}
}
