package io.backpressure.redis;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.EpochClock;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.spi.LimitPlan;
import io.backpressure.core.spi.RequestCheck;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate with its state on Redis or Valkey, shared by every worker process of a target. Each
 * admission is one {@code EVALSHA} of {@code admit.lua} and each release one of {@code
 * release.lua}: the whole decision of {@code NestedBuckets} (refill, the three layers, Δ, booking,
 * debit) runs inside the server, atomically, with the same arithmetic as the in-memory reference.
 * With {@link RedisGateConfig#fairQueuing()} the decision is the rebuilt rule's instead ({@code
 * FairRule}, as {@code InMemoryGate.createFairQueuing}): {@code fair_admit.lua}, {@code
 * fair_release.lua} and {@code fair_charge.lua} over {@code fair_rule.lua}, each one round trip,
 * and after each provider answer {@code fair_feedback.lua} applies what it taught to the rule.
 *
 * <p>This is the strict gate: it throws when Redis does not answer. Applications build it through
 * {@link ResilientRedisGate#open}, which connects in the background and decides by its fail mode
 * (local by default, or open, or closed) while Redis does not answer.
 *
 * <p>Caps and weights live in the target's config hash ({@link RedisPolicyStore}). The gate keeps a
 * copy to validate requests with {@link RequestCheck} (so both backends reject alike) and sends its
 * version with every call; when the stored policy has changed, the script answers "stale" without
 * touching anything, the gate reads the new policy and asks again. A change therefore takes effect
 * at every worker's next admission. If the config hash has vanished (a server restarted without
 * persistence), the gate writes back the last policy it knew.
 *
 * <p>Thread-safe; calls from any number of threads are multiplexed over one connection. {@link
 * #admit} and {@link #release} throw a Lettuce {@link RedisException} when Redis does not answer
 * within the command timeout; {@link ResilientRedisGate} keeps calls flowing then. A call the
 * client has given up on (its command timed out) changes nothing when a stalled server runs it
 * late: each call carries its give-up instant (see {@link ServerClock} and {@code guards.lua}).
 */
public final class RedisGate implements Gate, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RedisGate.class);

  /** Stale answers in a row before giving up (the policy is being rewritten continuously). */
  private static final int MAX_STALE = 4;

  /** A script's answer when it started after the client's give-up deadline (guards.lua). */
  private static final long GAVE_UP = 4;

  /**
   * admit.lua's answer when a limit (limits.lua) or the provider's retry-after defers the call; 6
   * and 7 reject it by a limit, 8 by the provider's stop, 9 expire it by the measured latency.
   */
  private static final long LIMIT_DEFERRED = 5;

  /** admit.lua's answer when the call's cost is above a limit's whole window (limits.lua). */
  private static final long LIMIT_NEVER_FITS = 7;

  /** admit.lua's answer while the provider's stop lasts (EffectiveCaps.stoppedUntil). */
  private static final long PROVIDER_STOPPED = 8;

  /**
   * admit.lua's answer when the call's deadline does not cover the adaptive concurrency limit's
   * measured latency (limits.lua).
   */
  private static final long LIMIT_LATE = 9;

  private final Connection connection;
  private final boolean ownsConnection;
  private final RedisPolicyStore store;
  private final Keys keys;
  private final String target;
  private final TimeSource timeSource;
  private final Ids ids = new Ids();
  private final ServerClock serverClock = ServerClock.system();
  private final long giveUpNanos;

  /** Whether this gate decides with the rebuilt rule ({@link RedisGateConfig#fairQueuing()}). */
  private final boolean fair;

  private volatile RedisPolicyStore.Stored live;

  private RedisGate(
      Connection connection,
      boolean ownsConnection,
      RedisPolicyStore store,
      Keys keys,
      RedisGateConfig config,
      RedisPolicyStore.Stored live) {
    this.connection = connection;
    this.ownsConnection = ownsConnection;
    this.store = store;
    this.keys = keys;
    this.target = config.target();
    this.timeSource = config.timeSource();
    this.giveUpNanos = config.commandTimeout().toNanos();
    this.fair = config.fairQueuing();
    this.live = live;
  }

  /**
   * Connects to the target of {@code config} now, strictly: this gate throws when Redis does not
   * answer. Most applications want {@link ResilientRedisGate#open} instead, which connects in the
   * background and decides by its fail mode meanwhile. The configured policy is handled as its
   * {@link PolicyOwnership} says (by default it is written only if the target has none).
   *
   * @throws NoSuchElementException when the target has no policy and the config gives none
   * @throws IllegalStateException when the ownership is VERIFY and the stored policy differs
   * @throws RedisException when the server cannot be reached, naming the cause
   */
  public static RedisGate connect(RedisGateConfig config) {
    Connection connection = Connection.open(config);
    try {
      return over(connection, true, config);
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /** A gate over an open connection, which it closes on {@link #close()} only if it owns it. */
  static RedisGate over(Connection connection, boolean ownsConnection, RedisGateConfig config) {
    Keys keys = Keys.of(config.keyPrefix(), config.target());
    RedisPolicyStore store =
        new RedisPolicyStore(
            connection,
            false,
            keys,
            config.target(),
            config.timeSource(),
            config.fairQueuing() ? RedisPolicyStore.FAIR_RULE : RedisPolicyStore.BUCKETS_RULE);
    RedisPolicyStore.Stored stored =
        config.initialPolicy() != null
            ? store.claim(config.initialPolicy(), config.ownership())
            : store
                .read()
                .map(store::adopt)
                .orElseThrow(
                    () ->
                        new NoSuchElementException(
                            "target '"
                                + config.target()
                                + "' has no policy in Redis; give one with RedisGateConfig.Builder.policy "
                                + "or write one with RedisPolicyStore.apply"));
    RedisGate gate = new RedisGate(connection, ownsConnection, store, keys, config, stored);
    if (config.timeSource() instanceof TimeSource.Server) {
      List<String> time = connection.await(connection.commands().time().toCompletableFuture());
      gate.serverClock.observe(
          Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1)));
    }
    return gate;
  }

  @Override
  public String target() {
    return target;
  }

  /** The policy this gate last read (refreshed whenever a call finds it stale). */
  public Policy policy() {
    return live.policy();
  }

  /** The {@link Policy#sendWithin()} of the policy this gate last read. */
  @Override
  public @Nullable Duration sendWithin() {
    return policy().sendWithin();
  }

  /** The target's policy store, over this gate's connection (closing it leaves the gate open). */
  public RedisPolicyStore policyStore() {
    return store;
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    return connection.await(decide(request)).admission();
  }

  /**
   * {@link #admit(AdmissionRequest)} without blocking: the future completes with the answer, or
   * exceptionally with a Lettuce {@link RedisException}.
   */
  public CompletableFuture<Admission> admitAsync(AdmissionRequest request) {
    return decide(request).thenApply(Decision::admission);
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    Objects.requireNonNull(grant, "grant");
    Objects.requireNonNull(actual, "actual");
    return connection.await(release(grant, actual, live, 0));
  }

  /**
   * Debits {@code spent} from the target's global buckets: one {@code EVALSHA} of {@code
   * charge.lua} (see {@link Gate#charge}).
   *
   * @throws IllegalArgumentException if {@code spent} has an unknown dimension or a negative or
   *     non-finite amount
   * @throws RedisException when Redis does not answer within the command timeout
   */
  @Override
  public void charge(Cost spent) {
    Objects.requireNonNull(spent, "spent");
    RedisPolicyStore.Stored stored = live;
    if (RequestCheck.amounts(stored.policy(), spent) == null) {
      throw new IllegalArgumentException(RequestCheck.problem(stored.policy(), spent, "spent"));
    }
    connection.await(charge(spent, stored, 0));
  }

  private CompletableFuture<Void> charge(Cost spent, RedisPolicyStore.Stored stored, int stale) {
    double[] amounts = RequestCheck.amounts(stored.policy(), spent);
    if (amounts == null) {
      return CompletableFuture.failedFuture(
          new RedisException(
              "the policy of target '"
                  + target
                  + "' changed under a charge: "
                  + RequestCheck.problem(stored.policy(), spent, "spent")));
    }
    String[] args = new String[2 + amounts.length];
    args[0] = stored.version();
    args[1] = now();
    for (int d = 0; d < amounts.length; d++) {
      args[2 + d] = Double.toString(amounts[d]);
    }
    return connection
        .run(
            fair ? Script.FAIR_CHARGE : Script.CHARGE,
            fair ? keys.fairStep() : keys.step(),
            withGiveUp(args))
        .thenCompose(
            reply -> {
              long code = (Long) reply.get(0);
              if (code == GAVE_UP) {
                return CompletableFuture.failedFuture(gaveUp());
              }
              if (code != 2) {
                return CompletableFuture.completedFuture(null);
              }
              return refresh(stale, (String) reply.get(1))
                  .thenCompose(next -> charge(spent, next, stale + 1));
            });
  }

  /** The connection this gate runs its scripts over. */
  Connection connection() {
    return connection;
  }

  /** The keys of this gate's target. */
  Keys keys() {
    return keys;
  }

  /**
   * Reports the provider's answer: one {@code EVALSHA} of {@code feedback.lua}, which updates the
   * target's effective caps for every worker at once (see {@link
   * io.backpressure.core.spi.EffectiveCaps}). Off the admission path; admission stays one round
   * trip.
   *
   * @throws RedisException when Redis does not answer within the command timeout
   */
  @Override
  public void feedback(@Nullable Grant grant, ProviderSignal signal) {
    Objects.requireNonNull(signal, "signal");
    connection.await(feedback(grant, signal, live, 0));
    if (fair) {
      connection.await(
          connection.run(
              Script.FAIR_FEEDBACK, keys.fairStep(keys.feedback()), live.version(), now()));
    }
    Limits.Concurrency concurrency = live.policy().limits().concurrency();
    Limits.Adaptive adaptive = concurrency == null ? null : concurrency.adaptive();
    if (adaptive != null && Limits.Adaptive.decreasesOn(signal)) {
      connection.await(
          connection.run(
              Script.OVERLOAD,
              new String[] {keys.limits()},
              now(),
              Integer.toString(adaptive.min()),
              Integer.toString(adaptive.max()),
              Long.toString(adaptive.latencyTargetMicros())));
    }
  }

  /** What the target has learned from its provider, now; empty when it has no policy. */
  public java.util.Optional<FeedbackState> feedbackState() {
    return connection.await(feedback(null, null, live, 0));
  }

  /**
   * One feedback step ({@code signal} null: a read) with the policy's parameters, reloaded when
   * stale.
   */
  private CompletableFuture<java.util.Optional<FeedbackState>> feedback(
      @Nullable Grant grant,
      @Nullable ProviderSignal signal,
      RedisPolicyStore.Stored stored,
      int stale) {
    return FeedbackScript.run(connection, keys, stored, now(), grant, signal)
        .thenCompose(
            reply -> {
              String liveVersion = FeedbackScript.stale(reply);
              if (liveVersion == null) {
                return CompletableFuture.completedFuture(
                    FeedbackScript.decode(stored.policy().dimensionNames(), reply));
              }
              return refresh(stale, liveVersion)
                  .thenCompose(next -> feedback(grant, signal, next, stale + 1));
            });
  }

  /** Closes the connection (the gate opened it). */
  @Override
  public void close() {
    if (ownsConnection) {
      connection.close();
    }
  }

  /**
   * An answer and the time it was decided at (µs on the gate's time source; -1 for a rejection
   * decided in the client).
   */
  record Decision(Admission admission, long decidedAtMicros) {}

  CompletableFuture<Decision> decide(AdmissionRequest request) {
    Objects.requireNonNull(request, "request");
    return attempt(request, live, 0);
  }

  private CompletableFuture<Decision> attempt(
      AdmissionRequest request, RedisPolicyStore.Stored stored, int stale) {
    Policy policy = stored.policy();
    RequestCheck check = RequestCheck.of(policy, request);
    if (check.rejection() != null) {
      return CompletableFuture.completedFuture(new Decision(check.rejection(), -1));
    }
    double[] estimate = check.estimate();
    double[] reserve = check.reserve();
    String tenant = Objects.requireNonNull(request.tenant(), "checked");
    String priority = Objects.requireNonNull(request.priority(), "checked");
    String grantId = ids.grant();
    String bookingId = ids.booking();
    String presented = Ids.isBooking(request.booking()) ? request.booking() : null;
    String grantKey = keys.grant(grantId);
    String bookingKey = keys.booking(bookingId);
    String line = keys.waiting(check.priorityIndex());
    String[] scriptKeys;
    if (fair) {
      scriptKeys =
          presented != null
              ? keys.fairStep(grantKey, bookingKey, line, keys.booking(presented))
              : keys.fairStep(grantKey, bookingKey, line);
    } else {
      scriptKeys =
          presented != null
              ? keys.step(grantKey, bookingKey, line, keys.booking(presented))
              : keys.step(grantKey, bookingKey, line);
    }
    Duration maxWait = check.maxWait(policy, request);
    LimitPlan plan = LimitPlan.of(policy, tenant, check.priorityIndex(), estimate, reserve);
    if (!plan.isEmpty()) {
      scriptKeys = withLimitKeys(scriptKeys, grantId);
    }
    int dims = estimate.length;
    String[] args = new String[8 + (reserve == null ? dims : 2 * dims)];
    args[0] = stored.version();
    args[1] = now();
    args[2] = tenant;
    args[3] = Integer.toString(check.priorityIndex());
    args[4] = Double.toString(policy.tenantWeight(tenant));
    args[5] = presented != null ? "1" : "0";
    args[6] = reserve != null ? "1" : "0";
    args[7] = Long.toString(maxWait == null ? -1 : maxWait.toNanos() / 1_000);
    for (int d = 0; d < dims; d++) {
      args[8 + d] = Double.toString(estimate[d]);
      if (reserve != null) {
        args[8 + dims + d] = Double.toString(reserve[d]);
      }
    }
    if (!plan.isEmpty()) {
      args =
          withPlan(
              args, plan, request.deadline() == null ? -1 : request.deadline().toNanos() / 1_000);
    }
    return connection
        .run(fair ? Script.FAIR_ADMIT : Script.ADMIT, scriptKeys, withGiveUp(args))
        .thenCompose(
            reply -> {
              long code = (Long) reply.get(0);
              if (code == GAVE_UP) {
                return CompletableFuture.failedFuture(gaveUp());
              }
              if (code >= LIMIT_DEFERRED) {
                return CompletableFuture.completedFuture(
                    limitDecision(reply, plan, presented != null ? presented : bookingId, maxWait));
              }
              if (code == 0 || code == 1) {
                observe((Long) reply.get(code == 0 ? 1 : 2));
              }
              if (code == 0) {
                double[] debit = new double[dims];
                for (int d = 0; d < dims; d++) {
                  debit[d] = debit(reply.get(2 + d));
                }
                Cost debited =
                    Arrays.equals(debit, estimate) ? request.cost() : toCost(policy, debit);
                Grant grant = new Grant(grantId, tenant, priority, debited, false);
                return CompletableFuture.completedFuture(
                    new Decision(new Admission.Admitted(grant), (Long) reply.get(1)));
              }
              if (code == 3) {
                Duration turn = Duration.ofNanos((Long) reply.get(1) * 1_000);
                return CompletableFuture.completedFuture(
                    new Decision(
                        Admission.Expired.of(turn, Objects.requireNonNull(maxWait)),
                        (Long) reply.get(2)));
              }
              if (code == 1) {
                long waitMicros = (Long) reply.get(1);
                String booking = (Long) reply.get(3) == 0 ? bookingId : presented;
                return CompletableFuture.completedFuture(
                    new Decision(
                        new Admission.Deferred(
                            Duration.ofNanos(waitMicros * 1_000), Objects.requireNonNull(booking)),
                        (Long) reply.get(2)));
              }
              return refresh(stale, (String) reply.get(1))
                  .thenCompose(next -> attempt(request, next, stale + 1));
            });
  }

  private CompletableFuture<Boolean> release(
      Grant grant, Cost actual, RedisPolicyStore.Stored stored, int stale) {
    Policy policy = stored.policy();
    double[] amounts = RequestCheck.amounts(policy, actual);
    if (amounts == null) {
      throw new IllegalArgumentException(RequestCheck.problem(policy, actual, "actual"));
    }
    if (grant.failedOpen() || !Ids.isGrant(grant.id())) {
      return CompletableFuture.completedFuture(false);
    }
    String grantKey = keys.grant(grant.id());
    String[] stepKeys = fair ? keys.fairStep(grantKey) : keys.step(grantKey);
    String[] scriptKeys = policy.limits().any() ? withLimitKeys(stepKeys, grant.id()) : stepKeys;
    // The rebuilt rule's release also takes the tenant's weight, after the time.
    int first = fair ? 3 : 2;
    String[] args = new String[first + amounts.length + (policy.limits().any() ? 3 : 0)];
    args[0] = stored.version();
    args[1] = now();
    if (fair) {
      args[2] = Double.toString(policy.tenantWeight(grant.tenant()));
    }
    for (int d = 0; d < amounts.length; d++) {
      args[first + d] = Double.toString(amounts[d]);
    }
    if (policy.limits().any()) {
      putAdaptive(args, first + amounts.length, policy.limits().concurrency());
    }
    return connection
        .run(fair ? Script.FAIR_RELEASE : Script.RELEASE, scriptKeys, withGiveUp(args))
        .thenCompose(
            reply -> {
              long code = (Long) reply.get(0);
              if (code == GAVE_UP) {
                return CompletableFuture.failedFuture(gaveUp());
              }
              if (code != 2) {
                return CompletableFuture.completedFuture(code == 1);
              }
              return refresh(stale, (String) reply.get(1))
                  .thenCompose(next -> release(grant, actual, next, stale + 1));
            });
  }

  /** {@code scriptKeys} followed by the limits' three keys (limits.lua) for grant {@code id}. */
  private String[] withLimitKeys(String[] scriptKeys, String id) {
    String[] all = Arrays.copyOf(scriptKeys, scriptKeys.length + 3);
    all[scriptKeys.length] = keys.limits();
    all[scriptKeys.length + 1] = keys.limitGrant(id);
    all[scriptKeys.length + 2] = keys.leases();
    return all;
  }

  /**
   * {@code args} followed by the call's limit plan as limits.lua reads it: the concurrency limit,
   * the window boundaries of a day and a month around this client's clock (Redis has no time zone
   * database; the script picks the window that holds its own time), the counters, and the
   * concurrency scopes.
   */
  private String[] withPlan(String[] args, LimitPlan plan, long deadlineMicros) {
    List<LimitPlan.Counter> counters = plan.counters();
    String[] all =
        Arrays.copyOf(
            args,
            args.length
                + 11
                + 9 * counters.size()
                + 2 * plan.scopes().size()
                + (plan.concurrency() == null ? 0 : 4));
    int at = args.length;
    Limits.Concurrency concurrency = plan.concurrency();
    all[at++] = concurrency == null ? "0" : Integer.toString(concurrency.maxInFlight());
    all[at++] = concurrency == null ? "0" : Long.toString(concurrency.leaseTtl().toNanos() / 1_000);
    long clock = nowMicros();
    for (Limits.Period period : Limits.Period.values()) {
      for (long boundary : plan.boundaries(period, clock)) {
        all[at++] = Long.toString(boundary);
      }
    }
    all[at++] = Integer.toString(counters.size());
    for (LimitPlan.Counter c : counters) {
      all[at++] = c.field();
      all[at++] = c.period() == Limits.Period.DAY ? "1" : "2";
      all[at++] = Double.toString(c.limit());
      all[at++] = Integer.toString(c.dimension() + 1);
      all[at++] = c.price() == null ? "" : Double.toString(c.price().inputPerMillion());
      all[at++] = c.price() == null ? "" : Double.toString(c.price().outputPerMillion());
      all[at++] = Double.toString(c.estimate());
      all[at++] = Double.toString(c.cost());
      all[at++] = Double.toString(c.hold());
    }
    for (LimitPlan.Scope scope : plan.scopes()) {
      all[at++] = scope.field();
      all[at++] = Integer.toString(scope.maxInFlight());
    }
    if (concurrency != null) {
      putAdaptive(all, at, concurrency);
      all[at + 3] = Long.toString(deadlineMicros);
    }
    return all;
  }

  /**
   * Writes the adaptive concurrency limit of {@code concurrency} at {@code args[at..at+2]} as
   * limits.lua reads it: its min (0: none), max and latency target in µs.
   */
  private static void putAdaptive(String[] args, int at, Limits.@Nullable Concurrency concurrency) {
    Limits.Adaptive adaptive = concurrency == null ? null : concurrency.adaptive();
    args[at] = adaptive == null ? "0" : Integer.toString(adaptive.min());
    args[at + 1] = adaptive == null ? "0" : Integer.toString(adaptive.max());
    args[at + 2] = adaptive == null ? "0" : Long.toString(adaptive.latencyTargetMicros());
  }

  /**
   * The answer admit.lua gave for a call held before the rule: {@code {5, Δ µs, now}} a deferral
   * (by a limit, or by the provider's retry-after; {@code Expired} when past {@code maxWait}) that
   * keeps the presented booking (or carries one no state stands behind), {@code {6, counter, reset
   * µs, used}} a limit's rejection until the reset, {@code {7, counter}} a cost above the whole
   * limit, {@code {8, reset µs, now}} the provider's stop until its reset, {@code {9, wait µs,
   * deadline µs, latency µs}} a call whose deadline does not cover the adaptive limit's measured
   * latency ({@link Limits.Adaptive#spare}).
   */
  private Decision limitDecision(
      List<Object> reply, LimitPlan plan, String booking, @Nullable Duration maxWait) {
    long code = (Long) reply.get(0);
    if (code == LIMIT_DEFERRED) {
      Duration wait = Duration.ofNanos((Long) reply.get(1) * 1_000);
      if (maxWait != null && wait.compareTo(maxWait) > 0) {
        return new Decision(Admission.Expired.of(wait, maxWait), (Long) reply.get(2));
      }
      return new Decision(new Admission.Deferred(wait, booking), (Long) reply.get(2));
    }
    if (code == LIMIT_LATE) {
      return new Decision(
          Limits.Adaptive.late((Long) reply.get(2), (Long) reply.get(3), (Long) reply.get(1)), -1);
    }
    if (code == PROVIDER_STOPPED) {
      return new Decision(LimitPlan.providerStopped(target, (Long) reply.get(1)), -1);
    }
    LimitPlan.Counter counter = plan.counters().get((int) (long) (Long) reply.get(1) - 1);
    if (code == LIMIT_NEVER_FITS) {
      return new Decision(LimitPlan.neverFits(counter), -1);
    }
    return new Decision(
        LimitPlan.rejection(
            counter, Double.parseDouble((String) reply.get(3)), (Long) reply.get(2)),
        -1);
  }

  /** This client's time in µs since the epoch: the caller's clock, else the system's. */
  private long nowMicros() {
    if (timeSource instanceof TimeSource.Caller caller) {
      return caller.clock().epochNanos() / 1_000;
    }
    return EpochClock.unix().epochNanos() / 1_000;
  }

  /**
   * Reads the live policy after a script found this gate's copy stale; writes the last known one
   * back if the target has none (its config hash was lost).
   */
  private CompletableFuture<RedisPolicyStore.Stored> refresh(int stale, String liveVersion) {
    if (stale + 1 >= MAX_STALE) {
      return CompletableFuture.failedFuture(
          new RedisException(
              "the policy of target '"
                  + target
                  + "' changed "
                  + MAX_STALE
                  + " times during one call"));
    }
    RedisPolicyStore.Stored known = live;
    CompletableFuture<?> restore = CompletableFuture.completedFuture(null);
    if (liveVersion.isEmpty()) {
      restore =
          store
              .write(known.policy(), "!")
              .thenAccept(
                  written -> {
                    if (written.isPresent()) {
                      LOG.warn(
                          "target {} had no policy in Redis (data lost or deleted); wrote back the last one this gate read;"
                              + " the buckets restart empty, and under a safe window nothing is"
                              + " admitted for one period (the lost state's last period counts as"
                              + " spent)",
                          target);
                    }
                  });
    }
    return restore
        .thenCompose(ignored -> store.readAsync())
        .thenApply(
            read -> {
              RedisPolicyStore.Stored next =
                  read.orElseThrow(
                      () -> new RedisException("target '" + target + "' has no policy in Redis"));
              live = next;
              return next;
            });
  }

  /**
   * {@code args} with the give-up deadline appended (guards.lua removes it again): the server time
   * after which this call's command has timed out at the client, '' with the caller's clock.
   */
  private String[] withGiveUp(String[] args) {
    String[] all = Arrays.copyOf(args, args.length + 1);
    all[args.length] =
        timeSource instanceof TimeSource.Server ? serverClock.giveUpAfter(giveUpNanos) : "";
    return all;
  }

  private void observe(long decidedAtMicros) {
    if (timeSource instanceof TimeSource.Server) {
      serverClock.observe(decidedAtMicros);
    }
  }

  private RedisException gaveUp() {
    return new RedisException(
        "Redis ran the call for target '"
            + target
            + "' after the client's command timeout;"
            + " it changed nothing");
  }

  private String now() {
    if (timeSource instanceof TimeSource.Caller caller) {
      return Long.toString(caller.clock().epochNanos() / 1_000);
    }
    return "";
  }

  /**
   * One dimension's debit as admit.lua replies it: an integer for a whole number below 2^53 (exact
   * as a double), otherwise the number's exact decimal.
   */
  private static double debit(Object reply) {
    return reply instanceof Long whole ? whole : Double.parseDouble((String) reply);
  }

  private static Cost toCost(Policy policy, double[] amounts) {
    return Cost.of(policy.dimensionNames(), amounts);
  }
}
