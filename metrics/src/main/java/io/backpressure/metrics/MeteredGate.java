package io.backpressure.metrics;

import static io.backpressure.metrics.MeterNames.*;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.FailOpenGate;
import io.backpressure.core.Gate;
import io.backpressure.core.GateLevels;
import io.backpressure.core.Grant;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.QuotaAdmin;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Gate} that records what another gate decides in Micrometer meters; decisions are
 * unchanged. Wrap any gate (in-memory, Redis, fail-open) and hand the wrapper to the workers:
 *
 * <pre>{@code
 * Gate gate = MeteredGate.builder(InMemoryGate.create(policy), registry).build();
 * }</pre>
 *
 * <p>What is recorded, per target and priority class (the README of this module has the table):
 * admissions by outcome ({@code admitted}, {@code deferred}, {@code rejected} with its reason,
 * {@code failed_open} for an admitted grant that {@link Grant#failedOpen() failed open}, and {@code
 * error} when the delegate throws); cost admitted, reconciled, refunded and overrun per dimension;
 * releases applied or ignored; the distribution of Δ; the time from each terminal refusal by a
 * calendar limit, a provider's stop or a quota to its reset; admission latency; and, read at scrape
 * time only, caps, bucket levels, utilisation and active queues.
 *
 * <p>Cardinality is bounded by default: tags are the target, the policy's classes and dimensions,
 * outcomes and reasons; a priority the policy does not name is tagged {@code _unknown}. The tenant
 * tag is opt-in ({@link Builder#tenantTag(boolean)}) and capped at a number of distinct tenants,
 * past which tenants share the value {@code _other}. All gates in one registry must agree on the
 * tenant tag, as one meter name cannot carry two tag sets.
 *
 * <p>Every meter is registered when the gate is built (those of an unknown priority or of a tenant
 * when first seen); recording is a lookup of the class by name and a few adds. {@link #close()}
 * removes the meters, which matters when a gate for the same target is built again in the same
 * registry (a gauge registered twice keeps reading the first gate). Thread-safe as the delegate is.
 */
public final class MeteredGate implements Gate, AutoCloseable {
  /** Admission latency histogram boundaries: 10 µs to 1 s. */
  static final Duration[] LATENCY_BUCKETS = {
    Duration.ofNanos(10_000),
    Duration.ofNanos(25_000),
    Duration.ofNanos(50_000),
    Duration.ofNanos(100_000),
    Duration.ofNanos(250_000),
    Duration.ofNanos(500_000),
    Duration.ofMillis(1),
    Duration.ofNanos(2_500_000),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofSeconds(1)
  };

  private final Gate delegate;
  private final MeterRegistry registry;
  private final Tags targetTags;
  private final List<String> dimensions;
  private final Map<String, QueueMeters> byClass;
  private volatile QueueMeters unknownClass;
  private final Timer latency;
  private final boolean tenantTag;
  private final int maxTaggedTenants;
  private final Map<String, Map<String, QueueMeters>> byClassAndTenant;
  private final Map<String, Boolean> knownTenants = new ConcurrentHashMap<>();
  private final Queue<Meter> meters = new ConcurrentLinkedQueue<>();
  private final FeedbackMeters feedback;
  private final Clock clock;

  private MeteredGate(Builder b, Policy policy) {
    this.delegate = b.delegate;
    this.clock = b.clock;
    this.registry = b.registry;
    this.targetTags = Tags.of(TARGET, delegate.target());
    this.dimensions = policy.dimensionNames();
    this.tenantTag = b.tenantTag;
    this.maxTaggedTenants = b.maxTaggedTenants;
    Map<String, QueueMeters> classes = new HashMap<>();
    Map<String, Map<String, QueueMeters>> tenants = new HashMap<>();
    for (String priority : policy.priorityNames()) {
      if (tenantTag) {
        tenants.put(priority, new ConcurrentHashMap<>());
      } else {
        classes.put(priority, queueMeters(priority, null));
      }
    }
    if (tenantTag) {
      tenants.put(UNKNOWN_PRIORITY, new ConcurrentHashMap<>());
    }
    this.byClass = Map.copyOf(classes);
    this.byClassAndTenant = Map.copyOf(tenants);
    this.latency =
        Timer.builder(ADMISSION_LATENCY)
            .description("Time one admission takes, the delegate's atomic step included")
            .tags(targetTags)
            .serviceLevelObjectives(LATENCY_BUCKETS)
            .register(registry);
    meters.add(latency);
    LevelGauges.register(
        registry,
        targetTags,
        policy,
        b.policies,
        b.levels,
        b.feedbackStates,
        b.levelsMaxAge.toNanos(),
        meters::add);
    this.feedback =
        new FeedbackMeters(
            registry,
            targetTags,
            dimensions,
            b.feedbackStates,
            b.levelsMaxAge.toNanos(),
            meters::add);
    LimitMeters.register(
        registry,
        targetTags,
        policy,
        b.inFlight,
        b.expiredLeases,
        b.concurrencyLimit,
        b.measuredLatency,
        b.quotas,
        b.levelsMaxAge.toNanos(),
        meters::add);
    if (delegate instanceof FailOpenGate failOpen) {
      meters.add(
          FunctionCounter.builder(STATE_FAILURES, failOpen, FailOpenGate::failures)
              .description("Calls the shared state could not answer (failed or timed out)")
              .tags(targetTags)
              .register(registry));
      meters.add(
          FunctionCounter.builder(STATE_UNGATED, failOpen, FailOpenGate::ungatedDecisions)
              .description("Calls decided by the fail-open mode instead of the shared state")
              .tags(targetTags)
              .register(registry));
    }
  }

  /**
   * A builder wrapping {@code gate}, recording into {@code registry}. For an {@link InMemoryGate}
   * the policy and the levels are read from the gate itself; for any other gate set at least {@link
   * Builder#policy(Supplier)}.
   */
  public static Builder builder(Gate gate, MeterRegistry registry) {
    return new Builder(gate, registry);
  }

  @Override
  public String target() {
    return delegate.target();
  }

  /** The delegate's. */
  @Override
  public @Nullable Duration sendWithin() {
    return delegate.sendWithin();
  }

  /** The gate whose decisions are recorded. */
  public Gate delegate() {
    return delegate;
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    Objects.requireNonNull(request, "request");
    QueueMeters m = meters(request.priority(), request.tenant());
    long start = System.nanoTime();
    Admission answer;
    try {
      answer = delegate.admit(request);
    } catch (RuntimeException e) {
      latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      m.error();
      throw e;
    }
    latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    if (answer instanceof Admission.Admitted a) {
      if (a.grant().failedOpen()) {
        m.failedOpen();
      } else {
        m.admitted(a.grant().debited());
      }
    } else if (answer instanceof Admission.Deferred d) {
      m.deferred(d.retryAfter());
    } else if (answer instanceof Admission.Rejected r) {
      if (r.resetAt() == null) {
        m.rejected(r.reason());
      } else {
        m.refusedUntil(r.reason(), Duration.between(clock.instant(), r.resetAt()));
      }
    }
    return answer;
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    boolean applied = delegate.release(grant, actual);
    QueueMeters m = meters(grant.priority(), grant.tenant());
    if (applied) {
      m.released(grant.debited(), actual);
    } else {
      m.releaseIgnored();
    }
    return applied;
  }

  /** Counts the answer by kind, then passes it on; the delegate learns from it. */
  @Override
  public void feedback(Grant grant, ProviderSignal signal) {
    feedback.reported(signal);
    delegate.feedback(grant, signal);
  }

  /**
   * Passes the hand-back on to the delegate unchanged (it is no admission, so nothing is counted).
   */
  @Override
  public void charge(Cost spent) {
    delegate.charge(spent);
  }

  /**
   * Removes this gate's meters from the registry; the delegate stays open. Recording after close
   * goes to meters no longer published. Idempotent.
   */
  @Override
  public void close() {
    for (Meter meter; (meter = meters.poll()) != null; ) {
      registry.remove(meter);
    }
  }

  private QueueMeters meters(String priority, String tenant) {
    if (!tenantTag) {
      QueueMeters m = priority == null ? null : byClass.get(priority);
      return m == null ? unknownClass() : m;
    }
    String klass =
        priority != null && byClassAndTenant.containsKey(priority) ? priority : UNKNOWN_PRIORITY;
    Map<String, QueueMeters> tenants = byClassAndTenant.get(klass);
    QueueMeters m = tenant == null ? null : tenants.get(tenant);
    if (m != null) {
      return m;
    }
    return tenants.computeIfAbsent(tenantTagValue(tenant), t -> queueMeters(klass, t));
  }

  /** The meters of priorities the policy does not name, registered when first needed. */
  private QueueMeters unknownClass() {
    QueueMeters m = unknownClass;
    if (m == null) {
      synchronized (this) {
        m = unknownClass;
        if (m == null) {
          m = queueMeters(UNKNOWN_PRIORITY, null);
          unknownClass = m;
        }
      }
    }
    return m;
  }

  /** The tenant's own name while fewer than the limit are tagged, else {@code _other}. */
  private String tenantTagValue(String tenant) {
    if (tenant == null) {
      return OTHER_TENANTS;
    }
    if (knownTenants.containsKey(tenant)) {
      return tenant;
    }
    if (knownTenants.size() >= maxTaggedTenants) {
      return OTHER_TENANTS;
    }
    synchronized (knownTenants) {
      if (knownTenants.size() >= maxTaggedTenants && !knownTenants.containsKey(tenant)) {
        return OTHER_TENANTS;
      }
      knownTenants.put(tenant, Boolean.TRUE);
      return tenant;
    }
  }

  private QueueMeters queueMeters(String priority, String tenant) {
    Tags tags = targetTags.and(PRIORITY, priority);
    if (tenantTag) {
      tags = tags.and(TENANT, tenant);
    }
    return new QueueMeters(registry, tags, dimensions, meters::add);
  }

  /** Configures a {@link MeteredGate}. */
  public static final class Builder {
    private static final int MAX_TAGGED_TENANTS = 100_000;

    private final Gate delegate;
    private final MeterRegistry registry;
    private Supplier<Policy> policies;
    private Supplier<GateLevels> levels;
    private Supplier<FeedbackState> feedbackStates;
    private LongSupplier inFlight;
    private LongSupplier expiredLeases;
    private LongSupplier concurrencyLimit;
    private LongSupplier measuredLatency;
    private QuotaAdmin quotas;
    private boolean tenantTag;
    private int maxTaggedTenants = 1_000;
    private Duration levelsMaxAge = Duration.ofSeconds(1);
    private Clock clock = Clock.systemUTC();

    private Builder(Gate delegate, MeterRegistry registry) {
      this.delegate = Objects.requireNonNull(delegate, "gate");
      this.registry = Objects.requireNonNull(registry, "registry");
      if (delegate instanceof InMemoryGate memory) {
        this.policies = memory::policy;
        this.levels = memory::levels;
        this.feedbackStates = memory::feedbackState;
        this.inFlight = memory::inFlight;
        this.expiredLeases = memory::expiredLeases;
        this.concurrencyLimit = memory::concurrencyLimit;
        this.measuredLatency = memory::measuredLatencyMicros;
        this.quotas = memory;
      }
    }

    /**
     * Where the concurrency leases are read, at scrape time only: the calls holding one now, and
     * the leases that expired unreleased so far. Defaults to {@link InMemoryGate#inFlight()} and
     * {@link InMemoryGate#expiredLeases()} for an in-memory gate; for a Redis gate, {@code
     * store::inFlight, store::expiredLeases} of its {@code policyStore()}. Without it, no lease
     * meters are registered.
     */
    public Builder leases(LongSupplier inFlight, LongSupplier expiredLeases) {
      this.inFlight = Objects.requireNonNull(inFlight, "inFlight");
      this.expiredLeases = Objects.requireNonNull(expiredLeases, "expiredLeases");
      return this;
    }

    /**
     * Where the target's concurrency limit in force is read, at scrape time only: an adaptive
     * limit's current value, else {@code max_in_flight}. Defaults to {@link
     * InMemoryGate#concurrencyLimit()} for an in-memory gate; for a Redis gate, {@code
     * store::concurrencyLimit} of its {@code policyStore()}. Without it, no limit gauge is
     * registered.
     */
    public Builder concurrencyLimit(LongSupplier limit) {
      this.concurrencyLimit = Objects.requireNonNull(limit, "limit");
      return this;
    }

    /**
     * Where the latency an adaptive concurrency limit measured last is read (µs; 0: none yet), at
     * scrape time only, for the gauge beside the limit's. Defaults to {@link
     * InMemoryGate#measuredLatencyMicros()} for an in-memory gate; for a Redis gate, {@code
     * store::measuredLatencyMicros} of its {@code policyStore()}. Without it, no latency gauge is
     * registered.
     */
    public Builder measuredLatency(LongSupplier micros) {
      this.measuredLatency = Objects.requireNonNull(micros, "micros");
      return this;
    }

    /**
     * Where each class's quota use is read, at scrape time only (at most once per {@link
     * #levelsMaxAge(Duration)} per class). Defaults to the gate itself for an in-memory gate; for a
     * Redis gate, its {@code policyStore()}. Without it, no quota gauges are registered.
     */
    public Builder quotas(QuotaAdmin source) {
      this.quotas = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Where what the gate learned from the provider is read, at scrape time only (as often as the
     * levels). Defaults to {@link InMemoryGate#feedbackState()} for an in-memory gate; for a Redis
     * gate, {@code () -> redis.feedbackState().orElse(null)}. Without it, no feedback gauges are
     * registered (the answers are still counted).
     */
    public Builder feedback(Supplier<FeedbackState> source) {
      this.feedbackStates = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Where the policy in force is read: once at build time for the class and dimension names the
     * meters are registered under, then at scrape time for caps and bursts. Required unless the
     * gate is an {@link InMemoryGate}; for a Redis gate, the store's current policy.
     */
    public Builder policy(Supplier<Policy> source) {
      this.policies = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Where bucket levels are read, at scrape time only (at most once per {@link
     * #levelsMaxAge(Duration)}). Defaults to {@link InMemoryGate#levels()} for an in-memory gate;
     * without it, no level gauges are registered. A source that throws makes them read NaN.
     */
    public Builder levels(Supplier<GateLevels> source) {
      this.levels = Objects.requireNonNull(source, "source");
      return this;
    }

    /**
     * Tags the per-class counters and the Δ timer with the tenant too (default off). Each tagged
     * tenant adds, per class it uses, about 30 time series plus 4 per dimension, so this is for
     * deployments with a bounded set of tenants; see {@link #maxTaggedTenants(int)}.
     */
    public Builder tenantTag(boolean enabled) {
      this.tenantTag = enabled;
      return this;
    }

    /**
     * With the tenant tag on, the number of distinct tenants tagged by name (default 1 000, range
     * [1, 100 000]); later tenants share the tag value {@code _other}.
     *
     * @throws IllegalArgumentException if {@code max} is out of range
     */
    public Builder maxTaggedTenants(int max) {
      if (max < 1 || max > MAX_TAGGED_TENANTS) {
        throw new IllegalArgumentException(
            "maxTaggedTenants must be in the range [1, " + MAX_TAGGED_TENANTS + "], got " + max);
      }
      this.maxTaggedTenants = max;
      return this;
    }

    /**
     * How long one sample of the policy and the levels serves the gauges (default 1 s, range (0, 1
     * h]): one scrape reads them all from one sample.
     *
     * @throws IllegalArgumentException if {@code maxAge} is out of range
     */
    public Builder levelsMaxAge(Duration maxAge) {
      if (maxAge == null
          || maxAge.isNegative()
          || maxAge.isZero()
          || maxAge.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "levelsMaxAge must be in the range (0, 1h], got " + maxAge);
      }
      this.levelsMaxAge = maxAge;
      return this;
    }

    /**
     * The clock the gate's reset instants are read against, for the time from a terminal refusal to
     * its reset ({@code backpressure.limit.reset.delay}): the gate's own epoch clock. Default: the
     * system clock.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Reads the policy once and registers the meters.
     *
     * @throws IllegalStateException if no policy source was set for a gate that is not in-memory
     * @throws IllegalArgumentException if the policy's target differs from the gate's
     */
    public MeteredGate build() {
      if (policies == null) {
        throw new IllegalStateException(
            "policy: a " + delegate.getClass().getSimpleName() + " needs builder.policy(source)");
      }
      Policy policy = Objects.requireNonNull(policies.get(), "policy source returned null");
      if (!policy.target().equals(delegate.target())) {
        throw new IllegalArgumentException(
            "policy: its target '"
                + policy.target()
                + "' differs from the gate's target '"
                + delegate.target()
                + "'");
      }
      return new MeteredGate(this, policy);
    }
  }
}
