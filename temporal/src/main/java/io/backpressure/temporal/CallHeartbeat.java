package io.backpressure.temporal;

import io.temporal.activity.ActivityExecutionContext;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an activity's heartbeat going while its admitted provider call runs. A blocking HTTP call
 * cannot heartbeat itself, so an activity with a heartbeat timeout would time out in the middle of
 * a long answer; an activity without one is noticed dead only at its start-to-close timeout, which
 * for a model call must cover the slowest answer, often minutes. With a heartbeat timeout set on
 * the activity and this keeper beating, the server runs the call again on another worker about one
 * heartbeat timeout after the worker running it died, however long the timeout to close.
 *
 * <p>The keeper beats every third of the heartbeat timeout (the SDK coalesces beats and sends at
 * most one per 0.8 of the timeout) from one shared daemon thread, without details, so it never
 * carries a server-timed deferral's state ({@link ServerDeferral}), which is written only when an
 * attempt ends deferred. It stops when closed, when a beat throws (the activity was cancelled,
 * timed out or completed: the call's own code learns of a cancellation only from its own
 * heartbeats), and at the attempt's start-to-close timeout at the latest, so a grant never released
 * cannot keep it beating. Thread-safe.
 */
final class CallHeartbeat implements AutoCloseable {
  /** The keeper of an activity without a heartbeat timeout: does nothing. */
  static final CallHeartbeat NONE = new CallHeartbeat(null, Long.MAX_VALUE, () -> {});

  /** The shortest interval between beats, whatever the heartbeat timeout. */
  private static final long MIN_INTERVAL_MILLIS = 50;

  private static final Logger log = LoggerFactory.getLogger(CallHeartbeat.class);

  private static final ScheduledExecutorService BEATS =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> {
            Thread thread = new Thread(runnable, "backpressure-heartbeat");
            thread.setDaemon(true);
            return thread;
          });

  private final @Nullable ActivityExecutionContext context;
  private final long stopAtNanos;
  private final Runnable whenStopped;
  private volatile @Nullable ScheduledFuture<?> beating;
  private volatile boolean stopped;

  private CallHeartbeat(
      @Nullable ActivityExecutionContext context, long stopAtNanos, Runnable whenStopped) {
    this.context = context;
    this.stopAtNanos = stopAtNanos;
    this.whenStopped = whenStopped;
  }

  /**
   * Starts beating for the attempt of {@code context}; {@link #NONE} when the activity has no
   * heartbeat timeout.
   *
   * @param whenStopped run once when the keeper stops by itself (not when closed)
   */
  static CallHeartbeat start(ActivityExecutionContext context, Runnable whenStopped) {
    Duration timeout = context.getInfo().getHeartbeatTimeout();
    if (timeout == null || timeout.isZero() || timeout.isNegative()) {
      return NONE;
    }
    long interval = Math.max(MIN_INTERVAL_MILLIS, timeout.toMillis() / 3);
    Duration startToClose = context.getInfo().getStartToCloseTimeout();
    long stopAt =
        startToClose == null || startToClose.isZero()
            ? Long.MAX_VALUE
            : System.nanoTime() + startToClose.toNanos();
    CallHeartbeat keeper = new CallHeartbeat(context, stopAt, whenStopped);
    keeper.beating =
        BEATS.scheduleWithFixedDelay(keeper::beat, interval, interval, TimeUnit.MILLISECONDS);
    return keeper;
  }

  private void beat() {
    if (stopped) {
      close();
      return;
    }
    if (stopAtNanos != Long.MAX_VALUE && System.nanoTime() - stopAtNanos >= 0) {
      stop();
      return;
    }
    try {
      Objects.requireNonNull(context).heartbeat(null);
    } catch (RuntimeException ended) {
      log.debug("heartbeat keeper stopped: {}", ended.toString());
      stop();
    }
  }

  private void stop() {
    close();
    whenStopped.run();
  }

  /** Stops beating; a beat under way finishes. */
  @Override
  public void close() {
    stopped = true;
    ScheduledFuture<?> future = beating;
    if (future != null) {
      future.cancel(false);
    }
  }
}
