package io.backpressure.eval.real;

import io.backpressure.eval.measure.FaultWindows.Step;
import io.backpressure.eval.workload.Fault;
import io.backpressure.eval.workload.Workload;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Injects the {@link Fault}s of one real run at their times after the run's origin: SIGSTOP and
 * SIGCONT, SIGKILL and restart, FLUSHALL of the harness's redis-server ({@link OwnedRedis}),
 * SIGKILL of one worker process and its replacement, and the mock provider's fault switches ({@link
 * Faults}: 500s, latency ×{@value #SLOW_FACTOR}), each switched off at its fault's end (overlapping
 * provider faults combine). Closing it cancels what is still pending and puts the server back
 * (resumed, restarted) so the next run starts with Redis up. Thread-safe.
 */
final class FaultInjector implements AutoCloseable {
  /** How much slower the provider answers during {@code provider-slow}. */
  static final double SLOW_FACTOR = 10;

  private final OwnedRedis redis;
  private final MockProvider provider;
  private int providerErrors;
  private int providerSlow;
  private final Ledger ledger;

  /**
   * One thread per step that may block (a replacement worker's JVM takes seconds to start polling
   * on a loaded machine), so no step waits for another's: each runs at its own time.
   */
  private final ScheduledExecutorService timer;

  private final List<String> done = new ArrayList<>();
  private final List<Step> steps = new ArrayList<>();
  private volatile boolean paused;
  private volatile boolean down;

  /**
   * Schedules {@code faults} on the run of {@code ledger}.
   *
   * @param redis the harness's redis-server, or null (then no Redis fault may be given)
   * @param workers the run's workers (a worker-kill needs worker processes)
   * @param provider the run's mock provider, whose fault switches the provider faults turn
   */
  FaultInjector(
      List<Fault> faults,
      OwnedRedis redis,
      WorkerGroup workers,
      Ledger ledger,
      MockProvider provider) {
    this.redis = redis;
    this.provider = provider;
    this.ledger = ledger;
    check(faults, redis != null, workers.hasProcesses() ? 2 : 1);
    this.timer =
        Executors.newScheduledThreadPool(
            Math.max(1, 2 * faults.size()),
            r -> {
              Thread t = new Thread(r, "fault-injector");
              t.setDaemon(true);
              return t;
            });
    for (Fault f : faults) {
      switch (f.kind()) {
        case "redis-stop" -> {
          at(
              f.atS(),
              f,
              false,
              () -> {
                redis.pause();
                paused = true;
              });
          at(
              f.atS() + f.durationS(),
              f,
              true,
              () -> {
                redis.resume();
                paused = false;
              });
        }
        case "redis-kill" -> {
          at(
              f.atS(),
              f,
              false,
              () -> {
                redis.kill();
                down = true;
              });
          at(
              f.atS() + f.durationS(),
              f,
              true,
              () -> {
                redis.restart();
                down = false;
              });
        }
        case "redis-flush" -> at(f.atS(), f, false, redis::flush);
        case "worker-kill" ->
            at(
                f.atS(),
                f,
                false,
                () -> {
                  int slots = workers.killOne();
                  if (f.durationS() > 0 && slots > 0) {
                    at(f.atS() + f.durationS(), f, true, () -> workers.replace(slots, ledger));
                  }
                });
        case "provider-errors" -> {
          at(f.atS(), f, false, () -> provider(1, 0));
          at(f.endS(), f, true, () -> provider(-1, 0));
        }
        case "provider-slow" -> {
          at(f.atS(), f, false, () -> provider(0, 1));
          at(f.endS(), f, true, () -> provider(0, -1));
        }
        default ->
            throw new IllegalArgumentException(
                "--fault " + f.kind() + " is not available in this build");
      }
    }
  }

  /**
   * Validates {@code faults} against the options before any run.
   *
   * @throws IllegalArgumentException naming the fault and the option it needs
   */
  static void check(List<Fault> faults, boolean ownsRedis, int workerProcesses) {
    for (Fault f : faults) {
      if (f.onRedis() && !ownsRedis) {
        throw new IllegalArgumentException(
            "--fault " + f + " needs --redis auto (the harness owns that server)");
      }
      if (f.kind().equals("worker-kill") && workerProcesses < 2) {
        throw new IllegalArgumentException(
            "--fault " + f + " needs --workers 2 or more (worker processes)");
      }
    }
  }

  /** Counts provider faults in force up or down and sets the provider's switches to match. */
  private synchronized void provider(int errors, int slow) {
    providerErrors += errors;
    providerSlow += slow;
    provider.setFaults(new Faults(providerErrors > 0, providerSlow > 0 ? SLOW_FACTOR : 1));
  }

  /**
   * Runs {@code action} {@code seconds} after the run's origin.
   *
   * @param closing whether the step ends its fault (SIGCONT, restart, replacement polling, switch
   *     off)
   */
  private void at(double seconds, Fault fault, boolean closing, Runnable action) {
    long delay =
        Math.max(0, ledger.originEpochNanos() + Workload.nanos(seconds) - Ledger.epochNanos());
    // The step records its own failure among the faults done: the future has nothing to add.
    Future<?> unused =
        timer.schedule(
            () -> {
              try {
                action.run();
                long now = ledger.now();
                record(
                    String.format(Locale.ROOT, "%s: step at %.2f s", fault, now / 1e9),
                    new Step(fault, closing, now));
              } catch (RuntimeException e) {
                record(
                    String.format(
                        Locale.ROOT,
                        "%s: step at %.2f s failed: %s",
                        fault,
                        ledger.now() / 1e9,
                        e.getMessage()),
                    null);
              }
            },
            delay,
            TimeUnit.NANOSECONDS);
  }

  private synchronized void record(String line, Step step) {
    done.add(line);
    if (step != null) {
      steps.add(step);
    }
  }

  /** The steps that took effect so far, in order. */
  synchronized List<Step> steps() {
    return List.copyOf(steps);
  }

  /** What was injected so far, in order. */
  synchronized List<String> done() {
    return List.copyOf(done);
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (paused) {
      redis.resume();
    }
    if (down) {
      redis.restart();
    }
  }
}
