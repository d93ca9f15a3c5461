package io.backpressure.core;

import io.backpressure.core.feedback.ProviderSignal;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps calls flowing when the shared state cannot answer (SPEC invariant I3). Wraps any gate: when
 * the delegate throws or does not answer within the timeout, the call is handled by the {@link
 * Mode} instead, the failure is counted, and a warning is logged at most once per log interval
 * (with the count since the last one). After a failure the delegate is left alone for the probe
 * interval and then tried again, so gating resumes by itself once the state is back.
 *
 * <p>Thread-safe. Without a timeout the delegate runs on the caller's thread and only its own
 * errors (e.g. a Redis client's command timeout) count as failures; with one, it runs on a daemon
 * pool so that a hung call can be abandoned.
 */
public final class FailOpenGate implements Gate {
  private static final Logger LOG = LoggerFactory.getLogger(FailOpenGate.class);

  /** What a call gets while the state is unavailable. */
  public enum Mode {
    /** Admit ungated: the grant is marked {@link Grant#failedOpen()}; the caller behaves as without the gate. */
    OPEN,
    /** Defer every call for the closed retry interval; nothing reaches the provider ungated. */
    CLOSED,
    /** Decide with a local gate (e.g. an {@link InMemoryGate} with this worker's slice of the caps). */
    LOCAL
  }

  private final Gate delegate;
  private final Mode mode;
  private final Duration timeout;
  private final Duration probeInterval;
  private final Duration closedRetryAfter;
  private final Duration logInterval;
  private final Gate local;
  private final Clock clock;
  private final ExecutorService pool;
  private final Set<String> localGrants = ConcurrentHashMap.newKeySet();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicLong ungated = new AtomicLong();
  private final AtomicLong bypassUntil = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong nextLogAt = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong failuresAtLastLog = new AtomicLong();
  private final AtomicBoolean unpaced = new AtomicBoolean();

  private FailOpenGate(Builder b) {
    this.delegate = b.delegate;
    this.mode = b.mode;
    this.timeout = b.timeout;
    this.probeInterval = b.probeInterval;
    this.closedRetryAfter = b.closedRetryAfter;
    this.logInterval = b.logInterval;
    this.local = b.local;
    this.clock = b.clock;
    this.pool = timeout == null ? null : Executors.newCachedThreadPool(r -> {
      Thread thread = new Thread(r, "backpressure-fail-open");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** A builder around {@code delegate}; defaults: mode OPEN, no timeout, probe every 500 ms. */
  public static Builder around(Gate delegate) {
    return new Builder(delegate);
  }

  @Override
  public String target() {
    return delegate.target();
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
    if (now >= bypassUntil.get()) {
      try {
        Admission answer = call(() -> delegate.admit(request));
        if (unpaced.compareAndSet(true, false)) {
          resumed();
        }
        return answer;
      } catch (StateUnavailableException e) {
        failed(now, e.getCause());
      }
    }
    ungated.incrementAndGet();
    return switch (mode) {
      case OPEN -> new Admission.Admitted(new Grant(
          "open-" + ungated.get(), String.valueOf(request.tenant()), String.valueOf(request.priority()),
          request.cost(), true));
      case CLOSED -> new Admission.Deferred(closedRetryAfter, request.booking() == null ? "" : request.booking());
      case LOCAL -> {
        Admission answer = local.admit(new AdmissionRequest(
            request.tenant(), request.priority(), request.cost(), request.maxTokens(), null, request.maxWait()));
        if (answer instanceof Admission.Admitted a) {
          localGrants.add(a.grant().id());
        }
        yield answer;
      }
    };
  }

  @Override
  public boolean release(Grant grant, Cost actual) {
    if (grant.failedOpen()) {
      return false;
    }
    if (localGrants.remove(grant.id())) {
      return local.release(grant, actual);
    }
    try {
      return call(() -> delegate.release(grant, actual));
    } catch (StateUnavailableException e) {
      failed(clock.nanoTime(), e.getCause());
      return false;
    }
  }

  /**
   * Passes the provider's answer on to the gate that decided the call: the shared state, or the
   * local fallback while the state is unavailable. A failure to deliver it is counted like any
   * other and never reaches the caller.
   */
  @Override
  public void feedback(Grant grant, ProviderSignal signal) {
    long now = clock.nanoTime();
    if (now < bypassUntil.get()) {
      if (mode == Mode.LOCAL) {
        local.feedback(grant, signal);
      }
      return;
    }
    try {
      call(() -> {
        delegate.feedback(grant, signal);
        return null;
      });
    } catch (StateUnavailableException e) {
      failed(now, e.getCause());
    }
  }

  /**
   * Gating has resumed after calls went unpaced: the delegate starts its recovery ramp, so the
   * calls that waited do not all go at once.
   */
  private void resumed() {
    try {
      call(() -> {
        delegate.feedback(null, ProviderSignal.resumedAfterOutage());
        return null;
      });
    } catch (StateUnavailableException e) {
      failed(clock.nanoTime(), e.getCause());
    }
  }

  private <T> T call(java.util.function.Supplier<T> action) {
    if (pool == null) {
      try {
        return action.get();
      } catch (IllegalArgumentException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new StateUnavailableException(e);
      }
    }
    CompletableFuture<T> future = CompletableFuture.supplyAsync(action, pool);
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

  private void failed(long now, Throwable cause) {
    long count = failures.incrementAndGet();
    unpaced.set(true);
    bypassUntil.set(now + probeInterval.toNanos());
    long due = nextLogAt.get();
    if (now >= due && nextLogAt.compareAndSet(due, now + logInterval.toNanos())) {
      long since = count - failuresAtLastLog.getAndSet(count);
      LOG.warn("shared state for target {} unavailable ({} failures since the last warning); deciding {}: {}",
          delegate.target(), since, mode, String.valueOf(cause));
    }
  }

  /** The delegate could not answer; carries the original cause. */
  private static final class StateUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StateUnavailableException(Throwable cause) {
      super(cause);
    }
  }

  /** Configures a {@link FailOpenGate}. */
  public static final class Builder {
    private final Gate delegate;
    private Mode mode = Mode.OPEN;
    private Duration timeout;
    private Duration probeInterval = Duration.ofMillis(500);
    private Duration closedRetryAfter = Duration.ofSeconds(1);
    private Duration logInterval = Duration.ofSeconds(10);
    private Gate local;
    private Clock clock = Clock.system();

    private Builder(Gate delegate) {
      this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** What calls get while the state is unavailable (default OPEN). */
    public Builder mode(Mode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /** Abandon a delegate call after this long (default: none; rely on the delegate's own timeout). */
    public Builder timeout(Duration timeout) {
      this.timeout = positive("timeout", timeout);
      return this;
    }

    /** After a failure, leave the delegate alone this long before trying it again (default 500 ms). */
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

    /** The gate that decides in LOCAL mode. */
    public Builder localFallback(Gate gate) {
      this.local = Objects.requireNonNull(gate, "gate");
      return this;
    }

    /** The clock for the probe and log intervals (default: the system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public FailOpenGate build() {
      if (mode == Mode.LOCAL && local == null) {
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
