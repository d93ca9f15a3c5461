package io.backpressure.redis;

import io.backpressure.core.AuditEntry;
import io.backpressure.core.Dimension;
import io.backpressure.core.EpochClock;
import io.backpressure.core.GateLevels;
import io.backpressure.core.InvalidPolicyException;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.QueueState;
import io.backpressure.core.QuotaAdmin;
import io.backpressure.core.QuotaHolder;
import io.backpressure.core.QuotaUse;
import io.backpressure.core.feedback.FeedbackState;
import io.backpressure.core.spi.LimitPlan;
import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A target's policy in Redis: read it, replace it, change one cap or weight, and look at the live
 * bucket levels. This is what the admin command uses; every {@link RedisGate} of the target picks a
 * change up at its next admission, without a restart.
 *
 * <p>Writes are validated before they reach Redis (a {@link Policy} is checked when it is built, so
 * a bad cap or weight throws {@link InvalidPolicyException} naming the field and nothing is
 * written) and are atomic: the policy, its version and the numbers the scripts use change in one
 * step. Changing caps and weights keeps the live state; changing the dimension or class names (only
 * possible with {@link #apply(Policy)}) drops it, so the next admission starts with full buckets
 * and empty queues, and grants and bookings of the old layout are ignored on release or retry. The
 * state is laid out for the rule the target's gates decide with (the nested buckets, or the rebuilt
 * rule of {@link RedisGateConfig#fairQueuing()}), which a gate records with the policy when it
 * connects; a gate of the other rule drops the state in the same way.
 *
 * <p>Thread-safe. Every method is one or a few round trips and throws a Lettuce {@code
 * RedisException} if the server does not answer within the command timeout.
 */
public final class RedisPolicyStore implements QuotaAdmin, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RedisPolicyStore.class);
  private static final int MAX_CONFLICTS = 16;

  private final Connection connection;
  private final boolean ownsConnection;
  private final Keys keys;
  private final String target;
  private final TimeSource timeSource;

  /**
   * The policy this store last parsed, with its version; a read whose version is the same returns
   * it instead of parsing the same JSON again. It cannot be stale: apply.lua is the only writer of
   * the stored policy, and it writes the policy and a new version in one command; a version is
   * never written twice (a counter and a random 64-bit suffix, even after the server lost its data
   * and a gate wrote the policy back). So a version read from the server names exactly one policy
   * text, whichever process wrote it, and every reader still reads the version from the server
   * (with the policy, or in the same script as the state it reads) before it uses this copy. The
   * rule recorded with it is the same kind of copy: apply.lua writes it too, with a new version.
   */
  private volatile @Nullable Parsed parsed;

  /** A policy as stored, and the rule its target's state is laid out for (apply.lua's 'rule'). */
  private record Parsed(Stored stored, String rule) {
    boolean fair() {
      return rule.equals(FAIR_RULE);
    }
  }

  /** The rule that lays out the state of a target no gate recorded one for: the nested buckets. */
  static final String BUCKETS_RULE = "buckets";

  /** The rebuilt rule's name in the config hash ({@link RedisGateConfig#fairQueuing()}). */
  static final String FAIR_RULE = "fair";

  /**
   * The rule of the gate this store serves ({@link #BUCKETS_RULE}, {@link #FAIR_RULE}), which its
   * writes record; null for a store that serves no gate, whose writes keep the recorded one.
   */
  private final @Nullable String rule;

  RedisPolicyStore(
      Connection connection,
      boolean ownsConnection,
      Keys keys,
      String target,
      TimeSource timeSource,
      @Nullable String rule) {
    this.connection = connection;
    this.ownsConnection = ownsConnection;
    this.keys = keys;
    this.target = target;
    this.timeSource = timeSource;
    this.rule = rule;
  }

  /** Connects to the target of {@code config} (its initial policy, if any, is not written). */
  public static RedisPolicyStore connect(RedisGateConfig config) {
    Connection connection = Connection.open(config);
    return new RedisPolicyStore(
        connection,
        true,
        Keys.of(config.keyPrefix(), config.target()),
        config.target(),
        config.timeSource(),
        null);
  }

  /**
   * A policy as stored, with its version.
   *
   * <p>A value, safe to read from any thread.
   *
   * @param policy the policy
   * @param version changes with every write, never repeats ({@code <counter>-<random>})
   */
  public record Stored(Policy policy, String version) {
    public Stored {
      Objects.requireNonNull(policy, "policy");
      Objects.requireNonNull(version, "version");
    }
  }

  /** The target this store writes. */
  public String target() {
    return target;
  }

  /** The live policy and its version, or empty when the target has none. */
  public Optional<Stored> read() {
    return connection.await(readAsync());
  }

  /** The live policy. @throws NoSuchElementException when the target has none */
  public Policy policy() {
    return read()
        .map(Stored::policy)
        .orElseThrow(
            () -> new NoSuchElementException("target '" + target + "' has no policy in Redis"));
  }

  /**
   * Replaces the policy atomically, whatever is stored (the {@code apply -f} of the admin command).
   * The dimension and class names may change; the live state is then reset (see the class comment).
   */
  public Stored apply(Policy policy) {
    return connection.await(write(policy, "")).orElseThrow();
  }

  /** A policy applied, the one it replaced (empty: none was stored), and the audit entry. */
  public record Applied(Optional<Stored> before, Stored stored, AuditEntry entry) {
    public Applied {
      Objects.requireNonNull(before, "before");
      Objects.requireNonNull(stored, "stored");
      Objects.requireNonNull(entry, "entry");
    }
  }

  /**
   * {@link #apply(Policy)}, audited: a {@code set} of the field {@code policy} by {@code actor},
   * from the version replaced ({@code none}) to the version written and its {@code source} (a file
   * name), is appended to the target's trail in the same atomic step as the write, so a failure
   * leaves neither; and logged. The version replaced is the one read just before: if another writer
   * replaces it in between, the write is tried again with the new one.
   *
   * @throws InvalidPolicyException naming {@code actor} when it is blank or too long (nothing is
   *     written)
   * @throws IllegalStateException after 16 conflicting writes in a row
   */
  public Applied apply(Policy policy, String actor, String source) {
    AuditEntry.checkActor(actor);
    Objects.requireNonNull(source, "source");
    for (int i = 0; i < MAX_CONFLICTS; i++) {
      Optional<Stored> before = read();
      String suffix = Ids.suffix();
      String version = (before.map(b -> counter(b.version())).orElse(0L) + 1) + "-" + suffix;
      AuditEntry entry =
          new AuditEntry(
              now(),
              actor,
              target,
              AuditEntry.SET,
              "policy",
              before.map(b -> "version " + b.version()).orElse("none"),
              "version " + version + " from " + source);
      Optional<Stored> written =
          connection.await(write(policy, before.map(Stored::version).orElse("-"), entry, suffix));
      if (written.isPresent()) {
        AUDIT.info("{}", entry.line());
        return new Applied(before, written.get(), entry);
      }
    }
    throw new IllegalStateException(
        "the policy of target '"
            + target
            + "' changed "
            + MAX_CONFLICTS
            + " times while applying one; try again");
  }

  /** The counter of a version ({@code "<counter>-<suffix>"}, as apply.lua writes it). */
  private static long counter(String version) {
    int dash = version.indexOf('-');
    try {
      return Long.parseLong(dash < 0 ? version : version.substring(0, dash));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /**
   * What a connecting gate does with its configured policy (see {@link PolicyOwnership}): writes
   * it, or keeps the stored one (with a WARN naming the differing fields), or fails when they
   * differ. Returns the policy the gate then gates by.
   *
   * @throws IllegalStateException with {@link PolicyOwnership#VERIFY}, when the stored policy
   *     differs
   */
  public Stored claim(Policy configured, PolicyOwnership ownership) {
    Objects.requireNonNull(configured, "configured");
    if (ownership == PolicyOwnership.REPLACE) {
      return apply(configured);
    }
    Optional<Stored> created = connection.await(write(configured, "-"));
    if (created.isPresent()) {
      return created.get();
    }
    Stored stored = read().orElseGet(() -> apply(configured));
    List<String> differences = PolicyDiff.between(stored.policy(), configured);
    if (!differences.isEmpty()) {
      String list = String.join("; ", differences);
      if (ownership == PolicyOwnership.VERIFY) {
        throw new IllegalStateException(
            "the policy of target '"
                + target
                + "' in Redis (version "
                + stored.version()
                + ") differs from the one configured: "
                + list
                + "; write it with RedisPolicyStore.apply or"
                + " PolicyOwnership.REPLACE, or configure the stored one");
      }
      LOG.warn(
          "target {}: gating by the policy stored in Redis (version {}), which differs from the one this worker"
              + " is configured with: {}",
          target,
          stored.version(),
          list);
    }
    return adopt(stored);
  }

  /**
   * {@code stored}, or the same policy written again when the target's state is laid out for the
   * other rule than this store's gate decides with: the write records this gate's rule and drops
   * that state, as a change of the dimension or class names does (see the class comment), with a
   * WARN. A store that serves no gate returns {@code stored}.
   *
   * @throws IllegalStateException after 16 conflicting writes in a row
   */
  Stored adopt(Stored stored) {
    if (rule == null) {
      return stored;
    }
    Stored current = stored;
    for (int i = 0; i < MAX_CONFLICTS; i++) {
      Parsed known = parsed;
      if (known == null || !known.stored().version().equals(current.version())) {
        known =
            connection
                .await(readParsed())
                .orElseThrow(
                    () ->
                        new NoSuchElementException(
                            "target '" + target + "' has no policy in Redis"));
        current = known.stored();
      }
      if (known.rule().equals(rule)) {
        return current;
      }
      Optional<Stored> written = connection.await(write(current.policy(), current.version()));
      if (written.isPresent()) {
        LOG.warn(
            "target {}: its state in Redis was laid out for the other admission rule; this gate"
                + " decides with {}, so the state starts anew (full buckets, empty queues)",
            target,
            rule.equals(FAIR_RULE) ? "the fair-queuing rule" : "the nested buckets");
        return written.get();
      }
      current =
          read()
              .orElseThrow(
                  () ->
                      new NoSuchElementException("target '" + target + "' has no policy in Redis"));
    }
    throw changedWhile("recording the rule its gates decide with");
  }

  /**
   * Whether the target's state is laid out for the rebuilt rule ({@link
   * RedisGateConfig#fairQueuing()}), as its gates recorded when they connected or wrote the policy;
   * false when the target has no policy, or no gate recorded a rule (the nested buckets).
   */
  public boolean fairQueuing() {
    return connection.await(readParsed()).map(Parsed::fair).orElse(false);
  }

  /** Stores {@code policy} only if the target has none; returns whether it was written. */
  public boolean create(Policy policy) {
    return connection.await(write(policy, "-")).isPresent();
  }

  /**
   * Reads the policy, applies {@code change} and writes the result if nobody wrote in between
   * (optimistic concurrency: on a conflict it reads and applies the change again).
   *
   * @throws NoSuchElementException when the target has no policy
   * @throws IllegalStateException after 16 conflicts in a row
   */
  public Stored update(UnaryOperator<Policy> change) {
    return update(change, null).stored();
  }

  /**
   * {@link #update(UnaryOperator)}, audited: a {@code set} of {@code field} by {@code actor} at
   * this store's time, its values before and after {@code describe} of the policy read and of the
   * one written, is appended to the target's trail in the same atomic step as the write (a failure
   * leaves neither), and logged.
   *
   * @throws InvalidPolicyException naming {@code actor} when it is blank or too long (nothing is
   *     written)
   */
  public Stored update(
      UnaryOperator<Policy> change, String actor, String field, Function<Policy, String> describe) {
    AuditEntry.checkActor(actor);
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(describe, "describe");
    return update(
            change,
            (before, after) ->
                new AuditEntry(
                    now(),
                    actor,
                    target,
                    AuditEntry.SET,
                    field,
                    describe.apply(before),
                    describe.apply(after)))
        .stored();
  }

  /** A policy written and the audit entry written with it, if any. */
  private record Audited(Stored stored, @Nullable AuditEntry entry) {}

  /**
   * {@link #update(UnaryOperator)}, with the audit entry {@code audit} makes of the policy read and
   * the one written (null: none) appended to the trail in the same atomic step as the write.
   */
  private Audited update(
      UnaryOperator<Policy> change, @Nullable BiFunction<Policy, Policy, AuditEntry> audit) {
    for (int i = 0; i < MAX_CONFLICTS; i++) {
      Stored current =
          read()
              .orElseThrow(
                  () ->
                      new NoSuchElementException("target '" + target + "' has no policy in Redis"));
      Policy next = change.apply(current.policy());
      AuditEntry entry = audit == null ? null : audit.apply(current.policy(), next);
      Optional<Stored> written = connection.await(write(next, current.version(), entry));
      if (written.isPresent()) {
        if (entry != null) {
          AUDIT.info("{}", entry.line());
        }
        return new Audited(written.get(), entry);
      }
    }
    throw new IllegalStateException(
        "the policy of target '"
            + target
            + "' changed "
            + MAX_CONFLICTS
            + " times while updating it; try again");
  }

  /** Hot update of one dimension's cap (units per second) and burst. */
  public Stored setCap(String dimension, double capPerSecond, double burst) {
    return update(p -> p.withDimension(new Dimension(dimension, capPerSecond, burst)));
  }

  /** Hot update of one priority class's weight. */
  public Stored setPriorityWeight(String priority, double weight) {
    return update(p -> p.withPriorityWeight(priority, weight));
  }

  /** Hot update of one tenant's weight. */
  public Stored setTenantWeight(String tenant, double weight) {
    return update(p -> p.withTenantWeight(tenant, weight));
  }

  /**
   * The buckets as of the target's last admission or release: L1 level per dimension, L2 level and
   * recently admitted rate per class and dimension, active queues per class. Empty before the first
   * admission (and after a layout change), when every bucket is full.
   *
   * <p>A target whose gates decide with the rebuilt rule ({@link #fairQueuing()}) is read by that
   * rule's layout and answered as {@code InMemoryGate.levels()} of a gate deciding with it: L1 is
   * its cap layer's level per dimension (the burst less what the cap is booked ahead of the last
   * step), every L2 level is 0 (the rule keeps no class buckets), the admitted rate is the class's
   * use; active queues and queue ages as for the nested buckets.
   */
  public Optional<GateLevels> levels() {
    Optional<Parsed> known = known();
    for (int attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
      String version = known.map(p -> p.stored().version()).orElse("");
      Policy policy = known.map(p -> p.stored().policy()).orElse(null);
      Script script = known.map(Parsed::fair).orElse(false) ? Script.FAIR_LEVELS : Script.LEVELS;
      List<String> levelKeys = new ArrayList<>(List.of(keys.config(), keys.state()));
      for (int k = 0; policy != null && k < policy.priorities().size(); k++) {
        levelKeys.add(keys.waiting(k));
      }
      List<Object> reply =
          connection.await(connection.run(script, levelKeys.toArray(String[]::new), version));
      if (!version.equals(reply.get(0))) {
        known = connection.await(readParsed());
        continue;
      }
      return policy == null || reply.size() == 1
          ? Optional.empty()
          : Optional.of(levels(policy, reply));
    }
    throw changedWhile("reading its levels");
  }

  /** The levels levels.lua answered for {@code policy}, its version first. */
  private static GateLevels levels(Policy policy, List<Object> reply) {
    int dims = ((Long) reply.get(1)).intValue();
    int classes = ((Long) reply.get(2)).intValue();
    List<String> dimNames = policy.dimensionNames();
    int i = 3;
    Map<String, Double> global = new LinkedHashMap<>();
    for (int d = 0; d < dims; d++) {
      global.put(dimNames.get(d), number(reply.get(i++)));
    }
    Map<String, Map<String, Double>> levels = new LinkedHashMap<>();
    for (int k = 0; k < classes; k++) {
      Map<String, Double> byDim = new HashMap<>();
      for (int d = 0; d < dims; d++) {
        byDim.put(dimNames.get(d), number(reply.get(i++)));
      }
      levels.put(policy.priorities().get(k).name(), Map.copyOf(byDim));
    }
    Map<String, Integer> active = new LinkedHashMap<>();
    for (int k = 0; k < classes; k++) {
      active.put(policy.priorities().get(k).name(), ((Long) reply.get(i++)).intValue());
    }
    Map<String, Map<String, Double>> rates = new LinkedHashMap<>();
    for (int k = 0; k < classes; k++) {
      Map<String, Double> byDim = new HashMap<>();
      for (int d = 0; d < dims; d++) {
        byDim.put(dimNames.get(d), number(reply.get(i++)));
      }
      rates.put(policy.priorities().get(k).name(), Map.copyOf(byDim));
    }
    long last = (long) number(reply.get(i++));
    Map<String, Duration> ages = new LinkedHashMap<>();
    for (int k = 0; k < classes; k++) {
      long oldest = (long) number(reply.get(i++));
      ages.put(
          policy.priorities().get(k).name(),
          Duration.ofNanos(oldest < 0 ? 0 : Math.max(0, last - oldest) * 1_000));
    }
    return new GateLevels(global, levels, rates, active, ages);
  }

  /**
   * The tenant-share bucket of the queue {@code (tenant, priority)} as stored, or empty when that
   * queue is not active (or the class is unknown). Under the rebuilt rule ({@link #fairQueuing()}),
   * as {@code InMemoryGate.queueState} of a gate deciding with it: the queue's lag behind the last
   * step (µs) as its level, capacity 0, its part of its class's served rate, its weight and when it
   * was last seen; empty once the rule forgot the queue.
   */
  public Optional<QueueState> queueState(String tenant, String priority) {
    Optional<Parsed> known = known();
    for (int attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
      String version = known.map(p -> p.stored().version()).orElse("");
      int k = known.map(p -> p.stored().policy().priorityIndex(priority)).orElse(-1);
      List<Object> reply =
          connection.await(
              connection.run(
                  known.map(Parsed::fair).orElse(false) ? Script.FAIR_QUEUE : Script.QUEUE,
                  new String[] {keys.config(), keys.state(), keys.queues()},
                  version,
                  k + ":" + tenant));
      if (!version.equals(reply.get(0))) {
        known = connection.await(readParsed());
        continue;
      }
      if (k < 0 || reply.size() == 1) {
        return Optional.empty();
      }
      double level = number(reply.get(1));
      double capacity = number(reply.get(2));
      double rate = number(reply.get(3));
      double weight = number(reply.get(4));
      long updated = (long) number(reply.get(5));
      return Optional.of(new QueueState(level, capacity, rate, weight, updated));
    }
    throw changedWhile("reading a queue");
  }

  /** The error after {@value #MAX_CONFLICTS} changes of the policy during one read or write. */
  private IllegalStateException changedWhile(String doing) {
    return new IllegalStateException(
        "the policy of target '"
            + target
            + "' changed "
            + MAX_CONFLICTS
            + " times while "
            + doing
            + "; try again");
  }

  /**
   * What the target has learned from its provider's answers (effective caps, cooldowns, outside
   * traffic), as of now; empty when the target has no policy.
   */
  public Optional<FeedbackState> feedbackState() {
    for (int i = 0; i < MAX_CONFLICTS; i++) {
      Optional<Stored> stored = read();
      if (stored.isEmpty()) {
        return Optional.empty();
      }
      List<Object> reply =
          connection.await(FeedbackScript.run(connection, keys, stored.get(), "", null, null));
      if (FeedbackScript.stale(reply) == null) {
        return FeedbackScript.decode(stored.get().policy().dimensionNames(), reply);
      }
    }
    throw new IllegalStateException(
        "the policy of target '"
            + target
            + "' changed "
            + MAX_CONFLICTS
            + " times while reading its feedback state; try again");
  }

  /**
   * {@inheritDoc} The counter as every worker's gate shares it, in the window that holds the time
   * of this store's time source (the server's {@code TIME} by default).
   */
  @Override
  public QuotaUse quotaUse(QuotaHolder holder) {
    Objects.requireNonNull(holder, "holder");
    Policy policy = policy();
    Limits.Quota quota = holder.requireQuota(policy);
    return counterStep("read", holder, quota, policy, null).use();
  }

  /**
   * {@inheritDoc} The policy is updated like any hot update ({@link #update}: every worker's gate
   * uses it from its next admission), and the audit entry appended to the target's trail in the
   * same atomic step: a failure leaves neither.
   */
  @Override
  public AuditEntry setQuota(QuotaHolder holder, Limits.Quota quota, String actor) {
    Objects.requireNonNull(holder, "holder");
    Objects.requireNonNull(quota, "quota");
    AuditEntry.checkActor(actor);
    AuditEntry entry =
        update(
                policy -> {
                  holder.checkIn(policy);
                  return policy.withLimits(policy.limits().withQuota(holder, quota));
                },
                (before, after) -> {
                  Limits.Quota own =
                      holder.kind() == QuotaHolder.Kind.TENANT
                          ? before.limits().tenantQuotas().get(holder.name())
                          : before.limits().classQuotas().get(holder.name());
                  return new AuditEntry(
                      now(),
                      actor,
                      target,
                      AuditEntry.SET,
                      holder.field(),
                      own == null ? "none" : AuditEntry.describe(own),
                      AuditEntry.describe(quota));
                })
            .entry();
    return Objects.requireNonNull(entry, "audited");
  }

  /**
   * {@inheritDoc} The counter is emptied in the window that holds the time of this store's time
   * source, and the audit entry appended, in one atomic step: a failure leaves neither.
   */
  @Override
  public AuditEntry resetQuota(QuotaHolder holder, String actor) {
    Objects.requireNonNull(holder, "holder");
    Policy policy = policy();
    Limits.Quota quota = holder.requireQuota(policy);
    AuditEntry.checkActor(actor);
    QuotaStep step = counterStep("reset", holder, quota, policy, actor);
    AuditEntry entry =
        new AuditEntry(
            step.at(),
            actor,
            target,
            AuditEntry.RESET,
            holder.field(),
            AuditEntry.used(step.use().used()),
            AuditEntry.used(0));
    AUDIT.info("{}", entry.line());
    return entry;
  }

  /**
   * {@inheritDoc} Kept in Redis (a stream, trimmed to about {@value #AUDIT_ENTRIES} entries), so
   * every admin process and worker reads the same trail.
   */
  @Override
  public List<AuditEntry> auditTrail() {
    List<StreamMessage<String, String>> newest =
        connection.await(
            connection
                .commands()
                .xrevrange(keys.audit(), Range.create("-", "+"), Limit.from(AUDIT_ENTRIES))
                .toCompletableFuture());
    List<AuditEntry> trail = new ArrayList<>(newest.size());
    for (int i = newest.size() - 1; i >= 0; i--) {
      Map<String, String> f = newest.get(i).getBody();
      trail.add(
          new AuditEntry(
              Instant.parse(entryField(f, "at")),
              entryField(f, "actor"),
              target,
              entryField(f, "action"),
              entryField(f, "field"),
              people(entryField(f, "before")),
              people(entryField(f, "after"))));
    }
    return trail;
  }

  /**
   * Calls holding a concurrency lease now, as every worker shares them: the leases whose expiry is
   * after this store's clock (the caller's, else this host's; a lease expires at the server's time,
   * so hosts a few milliseconds apart may count one expiring lease differently). 0 without a
   * concurrency limit.
   */
  public long inFlight() {
    return connection.await(
        connection
            .commands()
            .zcount(
                keys.leases(),
                Range.from(
                    Range.Boundary.excluding(micros(now())), Range.Boundary.<Long>unbounded()))
            .toCompletableFuture());
  }

  /**
   * Calls of {@code scope} (a class, or a tenant) holding a concurrency lease, as every worker
   * shares them: counted when a lease is taken and when it is released or found expired by an
   * admission under the concurrency limit, so a lease that expired since the target's last such
   * admission is still counted. 0 without a concurrency limit.
   */
  public long inFlight(QuotaHolder scope) {
    Objects.requireNonNull(scope, "scope");
    String field =
        scope.kind() == QuotaHolder.Kind.TENANT
            ? LimitPlan.tenantLeases(scope.name())
            : LimitPlan.classLeases(scope.name());
    String count =
        connection.await(connection.commands().hget(keys.limits(), field).toCompletableFuture());
    return count == null ? 0 : Long.parseLong(count);
  }

  /**
   * The target's concurrency limit in force, as every worker shares it: an adaptive limit's current
   * value (its min until a release or an overload moved it), else the fixed {@code max_in_flight};
   * 0 without a concurrency limit.
   */
  public long concurrencyLimit() {
    Limits.Concurrency concurrency = policy().limits().concurrency();
    if (concurrency == null) {
      return 0;
    }
    Limits.Adaptive adaptive = concurrency.adaptive();
    if (adaptive == null) {
      return concurrency.maxInFlight();
    }
    String raw =
        connection.await(
            connection.commands().hget(keys.limits(), "adaptive").toCompletableFuture());
    int stored = raw == null ? 0 : (int) Double.parseDouble(raw.substring(0, raw.indexOf(' ')));
    return adaptive.current(stored);
  }

  /**
   * The latency the adaptive concurrency limit measured last at the target, as every worker shares
   * it ({@link Limits.Adaptive}: the one a call's deadline must cover), in µs; 0 when none is
   * measured.
   */
  public long measuredLatencyMicros() {
    String raw =
        connection.await(
            connection.commands().hget(keys.limits(), "adaptive").toCompletableFuture());
    String[] fields = raw == null ? new String[0] : raw.split(" ");
    return fields.length < 4 ? 0 : (long) Double.parseDouble(fields[3]);
  }

  /**
   * Concurrency leases that expired unreleased, as the admission steps counted them: a lease past
   * its expiry is counted by the next admission that checks the concurrency limit.
   */
  public long expiredLeases() {
    String count =
        connection.await(
            connection.commands().hget(keys.limits(), "expired").toCompletableFuture());
    return count == null ? 0 : Long.parseLong(count);
  }

  /**
   * Resets the target's adaptive concurrency limit to its min, as a target whose limit never moved
   * starts, and appends the audit entry (a {@code reset} of {@code concurrency.adaptive} by {@code
   * actor}, from the limit in force to the min) in the same atomic step: a failure leaves neither.
   * Every worker's gate admits by the min from its next admission.
   *
   * @throws InvalidPolicyException naming {@code concurrency.adaptive} when the target's policy has
   *     no adaptive concurrency limit, or {@code actor} when it is blank or too long (nothing
   *     changes)
   * @throws NoSuchElementException when the target has no policy
   */
  public AuditEntry resetConcurrencyLimit(String actor) {
    AuditEntry.checkActor(actor);
    Limits.Concurrency concurrency = policy().limits().concurrency();
    Limits.Adaptive adaptive = concurrency == null ? null : concurrency.adaptive();
    if (adaptive == null) {
      throw new InvalidPolicyException(
          "concurrency.adaptive",
          "target '" + target + "' has no adaptive concurrency limit to reset");
    }
    Instant at = now();
    Object before =
        connection
            .await(
                connection.run(
                    Script.ADAPTIVE_RESET,
                    new String[] {keys.limits(), keys.audit()},
                    new String[] {
                      Integer.toString(adaptive.min()),
                      Integer.toString(adaptive.max()),
                      Integer.toString(AUDIT_ENTRIES),
                      at.toString(),
                      actor,
                      AuditEntry.RESET,
                      ADAPTIVE_FIELD
                    }))
            .get(0);
    AuditEntry entry =
        new AuditEntry(
            at,
            actor,
            target,
            AuditEntry.RESET,
            ADAPTIVE_FIELD,
            "limit " + before,
            "limit " + adaptive.min());
    AUDIT.info("{}", entry.line());
    return entry;
  }

  /** The policy field an adaptive limit's reset names in the audit trail. */
  static final String ADAPTIVE_FIELD = "concurrency.adaptive";

  /**
   * Appends a change of the policy made by other means than {@link #setQuota} or an audited {@link
   * #update(UnaryOperator, String, String, Function)} (a whole policy) to the target's audit trail,
   * as a {@code set} at this store's time, and logs it.
   *
   * @throws InvalidPolicyException naming {@code actor} when it is blank or too long
   */
  public AuditEntry audit(String actor, String field, String before, String after) {
    return append(new AuditEntry(now(), actor, target, AuditEntry.SET, field, before, after));
  }

  /** Most entries the audit trail keeps (Redis trims it approximately, never below this). */
  public static final int AUDIT_ENTRIES = 1_000;

  private static final Logger AUDIT = LoggerFactory.getLogger("io.backpressure.audit");

  private static final Pattern USED = Pattern.compile("used (-?[0-9][0-9.eE+-]*)");

  /**
   * A value as the trail writes it: a use written by quota.lua ({@code used} and its number exact,
   * {@code '%.17g'}) as {@link AuditEntry#used} prints that number; any other as stored.
   */
  private static String people(String value) {
    Matcher used = USED.matcher(value);
    return used.matches() ? AuditEntry.used(Double.parseDouble(used.group(1))) : value;
  }

  /** A field of a stored audit entry; empty if a hand-written entry lacks it. */
  private static String entryField(Map<String, String> fields, String name) {
    String value = fields.get(name);
    return value == null ? "" : value;
  }

  /** The stream fields of {@code entry}, in the order apply.lua takes them. */
  private static Map<String, String> entryFields(AuditEntry entry) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("at", entry.at().toString());
    fields.put("actor", entry.actor());
    fields.put("action", entry.action());
    fields.put("field", entry.field());
    fields.put("before", entry.before());
    fields.put("after", entry.after());
    return fields;
  }

  /** Appends {@code entry} to the target's audit trail, and logs it at INFO. */
  private AuditEntry append(AuditEntry entry) {
    Map<String, String> fields = entryFields(entry);
    connection.await(
        connection
            .commands()
            .xadd(
                keys.audit(), XAddArgs.Builder.maxlen(AUDIT_ENTRIES).approximateTrimming(), fields)
            .toCompletableFuture());
    AUDIT.info("{}", entry.line());
    return entry;
  }

  /** What quota.lua answered: the use as of its time, and that time. */
  private record QuotaStep(QuotaUse use, Instant at) {}

  /**
   * Runs quota.lua's {@code op} on {@code holder}'s counter of {@code quota}; a reset is audited as
   * made by {@code actor} in the same step.
   */
  private QuotaStep counterStep(
      String op, QuotaHolder holder, Limits.Quota quota, Policy policy, @Nullable String actor) {
    LimitPlan zone = LimitPlan.windowsOf(policy.limits().timeZone());
    List<String> args = new ArrayList<>();
    args.add(op);
    args.add(holder.counter(quota.period()));
    args.add(quota.period() == Limits.Period.DAY ? "1" : "2");
    args.add(
        timeSource instanceof TimeSource.Caller caller
            ? Long.toString(caller.clock().epochNanos() / 1_000)
            : "");
    args.add("0");
    args.add("0");
    long clock = micros(now());
    for (Limits.Period period : Limits.Period.values()) {
      for (long boundary : zone.boundaries(period, clock)) {
        args.add(Long.toString(boundary));
      }
    }
    String[] scriptKeys = {keys.limits()};
    if (actor != null) {
      args.add(Integer.toString(AUDIT_ENTRIES));
      args.add(actor);
      args.add(AuditEntry.RESET);
      args.add(holder.field());
      scriptKeys = new String[] {keys.limits(), keys.audit()};
    }
    List<Object> reply =
        connection.await(connection.run(Script.QUOTA, scriptKeys, args.toArray(String[]::new)));
    Instant at = instant((long) Double.parseDouble((String) reply.get(0)));
    QuotaUse use =
        QuotaUse.of(
            holder,
            quota,
            policy.limits().timeZone(),
            at,
            (long) Double.parseDouble((String) reply.get(1)),
            Double.parseDouble((String) reply.get(2)),
            Double.parseDouble((String) reply.get(3)));
    return new QuotaStep(use, at);
  }

  /** This client's time: the caller's clock, else the system's. */
  private Instant now() {
    long nanos =
        timeSource instanceof TimeSource.Caller caller
            ? caller.clock().epochNanos()
            : EpochClock.unix().epochNanos();
    return Instant.ofEpochSecond(
        Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
  }

  private static Instant instant(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1_000L);
  }

  private static long micros(Instant instant) {
    return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
  }

  /**
   * The policy {@code json} stored as {@code version} with {@code rule} (null: none recorded): the
   * one parsed last if it is that version.
   */
  private Parsed parsed(String version, String json, @Nullable String rule) {
    Parsed known = parsed;
    if (known != null && known.stored().version().equals(version)) {
      return known;
    }
    Parsed fresh =
        new Parsed(
            new Stored(PolicyCodec.fromJson(json), version), rule == null ? BUCKETS_RULE : rule);
    parsed = fresh;
    return fresh;
  }

  /**
   * The policy to name a state read by: the one parsed last, whose version the read's script checks
   * against the live one, else the stored one (empty: none).
   */
  private Optional<Parsed> known() {
    Parsed known = parsed;
    return known != null ? Optional.of(known) : connection.await(readParsed());
  }

  /** A number as the read scripts write it ({@code '%.17g'}: {@code inf} and {@code -inf} too). */
  private static double number(Object text) {
    return switch ((String) text) {
      case "inf" -> Double.POSITIVE_INFINITY;
      case "-inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble((String) text);
    };
  }

  /** Reads policy and version in one step. */
  CompletableFuture<Optional<Stored>> readAsync() {
    return readParsed().thenApply(read -> read.map(Parsed::stored));
  }

  /** Reads policy, version and rule in one step. */
  private CompletableFuture<Optional<Parsed>> readParsed() {
    return connection
        .commands()
        .hmget(keys.config(), "version", "policy", "rule")
        .toCompletableFuture()
        .thenApply(
            values -> {
              Map<String, String> fields = new HashMap<>();
              for (KeyValue<String, String> kv : values) {
                if (kv.hasValue()) {
                  fields.put(kv.getKey(), kv.getValue());
                }
              }
              String version = fields.get("version");
              String json = fields.get("policy");
              if (version == null || json == null) {
                return Optional.empty();
              }
              return Optional.of(parsed(version, json, fields.get("rule")));
            });
  }

  /**
   * Writes {@code policy} if the stored version is {@code expected} ({@code ""}: any, {@code "-"}:
   * none stored); empty when that expectation failed.
   */
  CompletableFuture<Optional<Stored>> write(Policy policy, String expected) {
    return write(policy, expected, null);
  }

  private CompletableFuture<Optional<Stored>> write(
      Policy policy, String expected, @Nullable AuditEntry entry) {
    return write(policy, expected, entry, Ids.suffix());
  }

  /**
   * Writes {@code policy} if the stored version is {@code expected} (apply.lua), with {@code
   * entry}, if any, appended to the audit trail in the same step; the new version ends with {@code
   * suffix}.
   */
  private CompletableFuture<Optional<Stored>> write(
      Policy policy, String expected, @Nullable AuditEntry entry, String suffix) {
    Objects.requireNonNull(policy, "policy");
    if (!policy.target().equals(target)) {
      throw new InvalidPolicyException(
          "target",
          "this store writes target '" + target + "', the policy is for '" + policy.target() + "'");
    }
    List<String> args = new ArrayList<>();
    args.add(expected);
    args.add(suffix);
    args.add(PolicyCodec.toJson(policy));
    args.add(PolicyCodec.layout(policy));
    args.add(rule == null ? "" : rule);
    String[] scriptKeys = keys.fairStep();
    if (entry != null) {
      args.add(Integer.toString(AUDIT_ENTRIES));
      args.addAll(entryFields(entry).values());
      scriptKeys = keys.fairStep(keys.audit());
    }
    args.addAll(PolicyCodec.params(policy));
    return connection
        .run(Script.APPLY, scriptKeys, args.toArray(String[]::new))
        .thenApply(
            reply ->
                ((Long) reply.get(0)) == 1
                    ? Optional.of(new Stored(policy, (String) reply.get(1)))
                    : Optional.empty());
  }

  /** Closes the connection if this store opened it (a gate's store shares the gate's). */
  @Override
  public void close() {
    if (ownsConnection) {
      connection.close();
    }
  }
}
