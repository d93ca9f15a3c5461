package io.backpressure.core;

import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps calls flowing when the shared state cannot answer (the fail-open guarantee in the README's
 * Backends section). Wraps any gate: when the delegate throws or does not answer within the
 * timeout, the call is handled by the {@link Mode} instead, the failure is counted, and a warning
 * is logged at most once per log interval (with the count since the last one, and the cause's
 * message, never a stack trace). After a failure the delegate is left alone for the probe interval;
 * then one call at a time (the probe) asks it while every other call is decided by the mode at
 * once, so an outage costs one caller at a time the timeout, and the probe's answer ends the outage
 * as soon as the state is back. The first answer after an outage is logged once at INFO.
 *
 * <p>Why one probe at a time: in {@link Mode#OPEN} the calls let through while the state is away
 * are not in it, so every call still decided ungated after the state is back adds to what the
 * shared state admits in the same provider window. With a probe waiting on the delegate through
 * most of an outage, the first answer comes within the delegate's own latency of the state's return
 * rather than up to a probe interval and a timeout later (the evaluation README, faults).
 *
 * <p>In {@link Mode#LOCAL} every outage gets a new local gate from the {@linkplain
 * Builder#localFallback(Supplier) factory} (typically an {@link InMemoryGate#createEmpty empty}
 * in-memory gate with this worker's slice of the caps), so each outage starts from empty buckets
 * rather than from whatever a local gate banked while the shared state was answering. The local
 * gate's grants and bookings carry the outage's number in their ids: a deferred call's retry
 * redeems its local booking (it does not pay again), a local grant's release goes back to the gate
 * that granted it, and ids of an earlier outage are ignored (their gate is gone).
 *
 * <p><b>The hand-back.</b> What this gate admits without the state (ungated in OPEN, by the local
 * gate in LOCAL) is recorded with its time, and when the state answers again the cost admitted
 * within the last {@linkplain Builder#handBack(Duration) hand-back horizon} {@code h} is
 * {@linkplain Gate#charge charged} to it in one call before gating resumes, so its global buckets
 * start that much below where they stood. Why: workers return to the state one by one, each when
 * its own probe is answered. Two workers at half the cap each, the state restarted empty: the first
 * to return shares a bucket refilling at the whole cap, while the other still admits its half
 * locally for up to the stagger {@code τ} (a probe interval, a command timeout, a reconnect), so a
 * provider window spanning the return sees {@code r·τ/2} above the cap ({@code r} the cap's rate;
 * 15/s and τ = 0.35 s: 17.6 against 15). When each worker charges the state what it admitted in the
 * last {@code h ≥ τ} on its return, the first returner's charge ({@code r·h/2}) covers what the
 * other admits before its return, and the other's charge covers the windows after. The horizon is
 * deliberately short rather than a whole provider period: a period's worth would leave the state a
 * period below empty and hold gating off for about a second after every outage (see the evaluation
 * README, faults); and the state takes a charge at most one burst below empty, so that an OPEN
 * flood at many times the cap (mostly refused by the provider) does not hold it off for seconds.
 * Each recorded spend is handed back once: records are taken out before the charge (a charge that
 * fails puts them back and the outage goes on), and a call decided by the mode while the outage was
 * ending hands its own spend back. A charge whose reply is lost is not retried, so the state errs
 * on the strict side at most by that much.
 *
 * <p>Thread-safe. Without a timeout the delegate runs on the caller's thread and only its own
 * errors (e.g. a Redis client's command timeout) count as failures; with one, it runs on a daemon
 * pool so that a hung call can be abandoned. {@link #close()} shuts that pool down (it does not
 * close the delegate); a closed gate decides every call by its {@link Mode}.
 */
public final class FailOpenGate implements Gate, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FailOpenGate.class);
  private static final String LOCAL_PREFIX = "local";

  /** What a call gets while the state is unavailable. */
  public enum Mode {
    /**
     * Admit ungated: the grant is marked {@link Grant#failedOpen()}; the caller behaves as without
     * the gate, except that it honours the provider's own {@code retry-after}: once the provider
     * answers an ungated call 429 with one (reported through {@link #feedback}), ungated calls are
     * deferred until it has passed (at most {@link #MAX_PROVIDER_WAIT}), as an SDK's retry would
     * wait.
     */
    OPEN,
    /** Defer every call for the closed retry interval; nothing reaches the provider ungated. */
    CLOSED,
    /**
     * Decide with a local gate (e.g. an {@link InMemoryGate} with this worker's slice of the caps).
     */
    LOCAL
  }

  /**
   * The longest a provider's {@code retry-after} holds ungated calls in {@link Mode#OPEN}; a longer
   * one (a daily quota's) is cut to this, after which the next ungated call asks the provider.
   */
  public static final Duration MAX_PROVIDER_WAIT = Duration.ofMinutes(1);

  /** The local gate of one outage, numbered from 1. */
  private record Outage(long number, Gate gate) {}

  /** A call admitted without the state, at {@code at} (ns on the clock), costing {@code cost}. */
  private record Spend(long at, Cost cost) {}

  private final Gate delegate;
  private final Mode mode;
  private final @Nullable Duration timeout;
  private final Duration probeInterval;
  private final Duration closedRetryAfter;
  private final Duration logInterval;
  private final long handBackNanos;
  private final @Nullable Supplier<? extends Gate> localFactory;
  private final Ticker clock;
  private final @Nullable ExecutorService pool;
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong ungated = new AtomicLong();

  /** Numbers the grants of {@link Mode#OPEN}, so that no two callers hold the same grant id. */
  private final AtomicLong openGrants = new AtomicLong();

  private final AtomicLong bypassUntil = new AtomicLong(Long.MIN_VALUE);

  /**
   * In {@link Mode#OPEN}, until when the provider asked ungated calls to wait: the latest end of a
   * {@code retry-after} it gave an ungated call, on {@code clock}.
   */
  private final AtomicLong providerWaitUntil = new AtomicLong(Long.MIN_VALUE);

  private final AtomicLong nextLogAt = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong failuresAtLastLog = new AtomicLong();
  private final AtomicLong failuresAtLastRecovery = new AtomicLong();

  /** Whether a probe is asking the delegate during an outage. */
  private final AtomicBoolean probing = new AtomicBoolean();

  /** What was admitted without the state, oldest first, pruned to the hand-back horizon. */
  private final ConcurrentLinkedDeque<Spend> spent = new ConcurrentLinkedDeque<>();

  /** Whether the last call the delegate was asked failed (an outage is under way). */
  private volatile boolean failing;

  private final Object outageLock = new Object();

  /** The local gate of the current or the last outage (LOCAL mode); null before the first. */
  private volatile @Nullable Outage outage;

  /** Whether {@link #outage} still serves the current outage (false once the delegate answered). */
  private volatile boolean outageOpen;

  private FailOpenGate(Builder b) {
    this.delegate = b.delegate;
    this.mode = b.mode;
    this.timeout = b.timeout;
    this.probeInterval = b.probeInterval;
    this.closedRetryAfter = b.closedRetryAfter;
    this.logInterval = b.logInterval;
    this.handBackNanos = b.handBack.toNanos();
    this.clock = b.clock;
    Policy localPolicy = b.localPolicy;
    this.localFactory =
        localPolicy != null ? () -> InMemoryGate.createEmpty(localPolicy, b.clock) : b.localFactory;
    this.pool =
        timeout == null
            ? null
            : Executors.newCachedThreadPool(
                r -> {
                  Thread thread = new Thread(r, "backpressure-fail-open");
                  thread.setDaemon(true);
                  return thread;
                });
  }

  /**
   * A builder around {@code delegate}; defaults: mode OPEN, no timeout, probe every 500 ms, hand
   * back 500 ms.
   */
  public static Builder around(Gate delegate) {
    return new Builder(delegate);
  }

  @Override
  public String target() {
    return delegate.target();
  }

  /** The delegate's: the bound belongs to the policy, whichever state decides. */
  @Override
  public @Nullable Duration sendWithin() {
    return delegate.sendWithin();
  }

  /** Calls the delegate could not answer since this gate was built. */
  public long failures() {
    return failures.get();
  }

  /** Calls decided by the fallback mode instead of the shared state. */
  public long ungatedDecisions() {
    return ungated.get();
  }

  @Override
  public Admission admit(AdmissionRequest request) {
    long now = clock.nanoTime();
    // During an outage only one call at a time asks the state (the probe); the others decide at
    // once.
    boolean probe = failing;
    if (now >= bypassUntil.get() && (!probe || probing.compareAndSet(false, true))) {
      try {
        Admission answer = call(() -> delegate.admit(request));
        answered();
        return answer;
      } catch (StateUnavailableException e) {
        failed(now, e.getCause());
      } finally {
        if (probe) {
          probing.set(false);
        }
      }
    }
    ungated.incrementAndGet();
    Admission answer =
        switch (mode) {
          case OPEN -> admitUngated(request, now);
          case CLOSED -> new Admission.Deferred(closedRetryAfter, bookingOf(request));
          case LOCAL -> admitLocally(request);
        };
    if (answer instanceof Admission.Admitted a) {
      spend(now, a.grant().debited());
    }
    return answer;
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    if (grant.failedOpen()) {
      return false;
    }
    long number = outageOf(grant.id());
    if (number > 0) {
      Outage current = outage;
      if (current == null || current.number() != number) {
        return false;
      }
      return current
          .gate()
          .release(
              new Grant(
                  localId(current, grant.id()),
                  grant.tenant(),
                  grant.priority(),
                  grant.debited(),
                  false),
              actual);
    }
    try {
      boolean applied = call(() -> delegate.release(grant, actual));
      answered();
      return applied;
    } catch (StateUnavailableException e) {
      failed(clock.nanoTime(), e.getCause());
      return false;
    }
  }

  /**
   * {@link Mode#OPEN}'s answer: ungated, unless the provider's {@code retry-after} to an ungated
   * call has not passed yet. Without that wait, every call the provider refuses during an outage
   * comes back through this gate at once and is let through again: a retry loop at the provider's
   * answer latency, ten times the cap in the evaluation's runs, and the hand-back then charges the
   * state with all of it (the evaluation README, faults).
   */
  private Admission admitUngated(AdmissionRequest request, long now) {
    long until = providerWaitUntil.get();
    long wait = until - now;
    if (until != Long.MIN_VALUE && wait > 0) {
      return new Admission.Deferred(Duration.ofNanos(wait), bookingOf(request));
    }
    return new Admission.Admitted(
        new Grant(
            "open-" + openGrants.incrementAndGet(),
            String.valueOf(request.tenant()),
            String.valueOf(request.priority()),
            request.cost(),
            true));
  }

  /** The booking a deferral by the mode hands back: the call's own, or none. */
  private static String bookingOf(AdmissionRequest request) {
    return request.booking() == null ? "" : request.booking();
  }

  /**
   * Decides with the current outage's local gate, redeeming a booking it handed out; the ids it
   * returns carry the outage's number.
   */
  private Admission admitLocally(AdmissionRequest request) {
    Outage current = currentOutage();
    String booking = request.booking() == null ? null : unwrap(current, request.booking());
    Admission answer =
        current
            .gate()
            .admit(
                new AdmissionRequest(
                    request.tenant(),
                    request.priority(),
                    request.cost(),
                    request.maxTokens(),
                    booking,
                    request.maxWait(),
                    request.deadline()));
    if (answer instanceof Admission.Admitted a) {
      Grant g = a.grant();
      return new Admission.Admitted(
          new Grant(wrap(current, g.id()), g.tenant(), g.priority(), g.debited(), false));
    }
    if (answer instanceof Admission.Deferred d) {
      return new Admission.Deferred(d.retryAfter(), wrap(current, d.booking()));
    }
    return answer;
  }

  /** The local gate of the outage under way, made at its first local decision. */
  private Outage currentOutage() {
    Outage current = outage;
    if (current != null && outageOpen) {
      return current;
    }
    synchronized (outageLock) {
      if (outage == null || !outageOpen) {
        Gate gate =
            Objects.requireNonNull(
                Objects.requireNonNull(localFactory, "localFallback").get(),
                "localFallback factory returned null");
        outage = new Outage(outage == null ? 1 : outage.number() + 1, gate);
        outageOpen = true;
      }
      return outage;
    }
  }

  private static String wrap(Outage outage, String id) {
    return LOCAL_PREFIX + outage.number() + ":" + id;
  }

  /** The outage whose local gate made {@code id} ({@code local<n>:<id>}), or 0 for any other id. */
  private static long outageOf(String id) {
    if (!id.startsWith(LOCAL_PREFIX)) {
      return 0;
    }
    int colon = id.indexOf(':', LOCAL_PREFIX.length());
    if (colon <= LOCAL_PREFIX.length() || colon - LOCAL_PREFIX.length() > 18) {
      return 0;
    }
    for (int i = LOCAL_PREFIX.length(); i < colon; i++) {
      if (!Character.isDigit(id.charAt(i))) {
        return 0;
      }
    }
    return Long.parseLong(id.substring(LOCAL_PREFIX.length(), colon));
  }

  /**
   * The local gate's own id inside {@code id}, or null when {@code id} is not of {@code outage}.
   */
  private static @Nullable String unwrap(Outage outage, String id) {
    String prefix = LOCAL_PREFIX + outage.number() + ":";
    return id.startsWith(prefix) ? id.substring(prefix.length()) : null;
  }

  /**
   * The local gate's own id inside {@code id}, which {@link #outageOf} found is of {@code outage}.
   */
  private static String localId(Outage outage, String id) {
    return Objects.requireNonNull(unwrap(outage, id), "id of another outage");
  }

  /**
   * Records a call admitted without the state; when the outage has ended meanwhile (the call was
   * decided while it ended), hands it back at once.
   */
  private void spend(long now, Cost cost) {
    for (Spend oldest = spent.peekFirst();
        oldest != null && oldest.at() <= now - handBackNanos;
        oldest = spent.peekFirst()) {
      spent.remove(oldest);
    }
    spent.addLast(new Spend(now, cost));
    if (!failing) {
      handBack();
    }
  }

  /**
   * Charges the delegate with what was admitted without it within the hand-back horizon (see the
   * class comment), in one call.
   *
   * @return false when the delegate failed (the records are kept for the next answer)
   */
  private boolean handBack() {
    long now = clock.nanoTime();
    List<Spend> batch = new ArrayList<>();
    for (Spend s = spent.pollFirst(); s != null; s = spent.pollFirst()) {
      if (s.at() > now - handBackNanos) {
        batch.add(s);
      }
    }
    if (batch.isEmpty()) {
      return true;
    }
    Cost sum = Cost.none();
    for (Spend s : batch) {
      for (String dimension : s.cost().dimensions()) {
        sum = sum.with(dimension, sum.amount(dimension) + s.cost().amount(dimension));
      }
    }
    Cost total = sum;
    try {
      call(
          () -> {
            delegate.charge(total);
            return null;
          });
      return true;
    } catch (IllegalArgumentException e) {
      // An ungated call's cost the state does not know (OPEN admits without checking): nothing to
      // charge.
      LOG.debug("hand-back to target {} refused: {}", delegate.target(), e.getMessage());
      return true;
    } catch (StateUnavailableException e) {
      for (int i = batch.size() - 1; i >= 0; i--) {
        spent.addFirst(batch.get(i));
      }
      failed(now, e.getCause());
      return false;
    }
  }

  /**
   * The delegate answered: ends an outage (once, logged at INFO) after handing back what was
   * admitted without it, and asks it again from now on.
   */
  private void answered() {
    if (!failing || !handBack()) {
      return;
    }
    failing = false;
    bypassUntil.set(Long.MIN_VALUE);
    outageOpen = false;
    long count = failures.get();
    long during = count - failuresAtLastRecovery.getAndSet(count);
    if (during > 0) {
      LOG.info(
          "shared state for target {} answers again; gating resumes ({} failures during the outage)",
          delegate.target(),
          during);
    }
    handBack();
    if (mode == Mode.OPEN) {
      resumed();
    }
  }

  /**
   * Passes the provider's answer on to the gate that decided the call: the shared state, or the
   * local fallback while the state is unavailable. A failure to deliver it is counted like any
   * other and never reaches the caller. A 429 with a {@code retry-after} to an ungated call ({@link
   * Mode#OPEN}) also holds the ungated calls until it has passed.
   */
  @Override
  public void feedback(@Nullable Grant grant, ProviderSignal signal) {
    long now = clock.nanoTime();
    Duration retryAfter = signal.retryAfter();
    if (grant != null && grant.failedOpen() && signal.rateLimited() && retryAfter != null) {
      long until =
          now
              + (retryAfter.compareTo(MAX_PROVIDER_WAIT) > 0 ? MAX_PROVIDER_WAIT : retryAfter)
                  .toNanos();
      providerWaitUntil.accumulateAndGet(
          until, (held, asked) -> held == Long.MIN_VALUE || asked - held > 0 ? asked : held);
    }
    long number = grant == null ? 0 : outageOf(grant.id());
    if (grant != null && number > 0) {
      Outage current = outage;
      if (current != null && current.number() == number) {
        current
            .gate()
            .feedback(
                new Grant(
                    localId(current, grant.id()),
                    grant.tenant(),
                    grant.priority(),
                    grant.debited(),
                    false),
                signal);
      }
      return;
    }
    if (now < bypassUntil.get()) {
      return;
    }
    try {
      call(
          () -> {
            delegate.feedback(grant, signal);
            return null;
          });
    } catch (StateUnavailableException e) {
      failed(now, e.getCause());
    }
  }

  /**
   * Charges the delegate with {@code cost} (see {@link Gate#charge}), for a wrapper or caller that
   * admitted calls without it. While the state cannot answer, the cost is recorded as a call
   * admitted without it now, and handed back with the first answer if still within the hand-back
   * horizon then.
   *
   * @throws IllegalArgumentException if the delegate refuses {@code cost}
   */
  @Override
  public void charge(Cost cost) {
    long now = clock.nanoTime();
    if (!failing && now >= bypassUntil.get()) {
      try {
        call(
            () -> {
              delegate.charge(cost);
              return null;
            });
        return;
      } catch (StateUnavailableException e) {
        failed(now, e.getCause());
      }
    }
    spend(now, cost);
  }

  /**
   * Gating has resumed after calls went unpaced (OPEN): the delegate starts its recovery ramp, so
   * the calls that waited do not all go at once. Not after LOCAL or CLOSED: the local gates paced
   * their calls from empty buckets (and the hand-back charged their tail), CLOSED admitted none, so
   * there is nothing for a ramp to take off, and it would only hold gating below the cap for the
   * ramp's duration after every outage (the evaluation README, faults).
   */
  private void resumed() {
    try {
      call(
          () -> {
            delegate.feedback(null, ProviderSignal.resumedAfterOutage());
            return null;
          });
    } catch (StateUnavailableException e) {
      failed(clock.nanoTime(), e.getCause());
    }
  }

  /**
   * Shuts down the pool that runs delegate calls under a timeout, abandoning calls still under way
   * (their callers are answered by the {@link Mode}). Idempotent; the delegate is not closed.
   */
  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  private <T> T call(Supplier<T> action) {
    ExecutorService pool = this.pool;
    Duration timeout = this.timeout;
    if (pool == null || timeout == null) {
      try {
        return action.get();
      } catch (IllegalArgumentException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new StateUnavailableException(e);
      }
    }
    CompletableFuture<T> future;
    try {
      future = CompletableFuture.supplyAsync(action, pool);
    } catch (RejectedExecutionException e) {
      throw new StateUnavailableException(e);
    }
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new StateUnavailableException(e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IllegalArgumentException iae) {
        throw iae;
      }
      throw new StateUnavailableException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StateUnavailableException(e);
    }
  }

  private void failed(long now, @Nullable Throwable cause) {
    long count = failures.incrementAndGet();
    failing = true;
    bypassUntil.set(now + probeInterval.toNanos());
    long due = nextLogAt.get();
    if (now >= due && nextLogAt.compareAndSet(due, now + logInterval.toNanos())) {
      long since = count - failuresAtLastLog.getAndSet(count);
      LOG.warn(
          "shared state for target {} unavailable ({} failures since the last warning); deciding {}: {}",
          delegate.target(),
          since,
          mode,
          String.valueOf(cause));
    }
  }

  /** The delegate could not answer; carries the original cause. */
  private static final class StateUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StateUnavailableException(@Nullable Throwable cause) {
      super(cause);
    }
  }

  /** Configures a {@link FailOpenGate}. Not thread-safe: configure it on one thread, then build. */
  public static final class Builder {
    private final Gate delegate;
    private Mode mode = Mode.OPEN;
    private @Nullable Duration timeout;
    private Duration probeInterval = Duration.ofMillis(500);
    private Duration closedRetryAfter = Duration.ofSeconds(1);
    private Duration logInterval = Duration.ofSeconds(10);
    private Duration handBack = Duration.ofMillis(500);
    private @Nullable Supplier<? extends Gate> localFactory;
    private @Nullable Policy localPolicy;
    private Ticker clock = Ticker.system();

    private Builder(Gate delegate) {
      this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** What calls get while the state is unavailable (default OPEN). */
    public Builder mode(Mode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /**
     * Abandon a delegate call after this long (default: none; rely on the delegate's own timeout).
     */
    public Builder timeout(Duration timeout) {
      this.timeout = positive("timeout", timeout);
      return this;
    }

    /**
     * After a failure, leave the delegate alone this long before trying it again (default 500 ms).
     */
    public Builder probeInterval(Duration interval) {
      this.probeInterval = positive("probeInterval", interval);
      return this;
    }

    /** The deferral handed out in CLOSED mode (default 1 s). */
    public Builder closedRetryAfter(Duration retryAfter) {
      this.closedRetryAfter = positive("closedRetryAfter", retryAfter);
      return this;
    }

    /** At most one warning per this interval (default 10 s). */
    public Builder logInterval(Duration interval) {
      this.logInterval = positive("logInterval", interval);
      return this;
    }

    /**
     * When the state answers again, charge it with what was admitted without it within this long
     * before (default 500 ms, one default probe interval; see the class comment for why the stagger
     * between workers' returns is the least it should be, and why much more holds gating off after
     * an outage).
     */
    public Builder handBack(Duration horizon) {
      this.handBack = positive("handBack", horizon);
      return this;
    }

    /**
     * Where LOCAL mode's gate comes from: {@code factory} is called at the first local decision of
     * every outage, and that gate decides until the delegate answers again. Give each outage a new
     * gate whose buckets start empty (see {@link InMemoryGate#createEmpty}), holding this worker's
     * slice of the caps.
     */
    public Builder localFallback(Supplier<? extends Gate> factory) {
      this.localFactory = Objects.requireNonNull(factory, "factory");
      this.localPolicy = null;
      return this;
    }

    /**
     * LOCAL mode decides with a new {@link InMemoryGate#createEmpty empty} in-memory gate of {@code
     * slice} (this worker's part of the caps) for every outage, on this builder's clock.
     */
    public Builder localFallback(Policy slice) {
      this.localPolicy = Objects.requireNonNull(slice, "slice");
      this.localFactory = null;
      return this;
    }

    /** The clock for the probe and log intervals (default: the system clock). */
    public Builder clock(Ticker clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public FailOpenGate build() {
      if (mode == Mode.LOCAL && localFactory == null && localPolicy == null) {
        throw new IllegalArgumentException("mode LOCAL needs a localFallback gate");
      }
      return new FailOpenGate(this);
    }

    private static Duration positive(String field, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(field + " must be a positive duration, got " + value);
      }
      return value;
    }
  }
}
