package io.backpressure.eval.real;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.client.WorkflowClient;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.LongStream;

/**
 * The workers of one real run: one {@link RealWorker} in this process, or {@code n} worker
 * processes ({@link WorkerMain}, same classpath) that share the gate through Redis and split the
 * workload's slots among them as evenly as possible (the run has the workload's slots in all). Each
 * process keeps its own {@link Ledger}; at the end the processes' ledgers are merged call by call
 * (a deferred call may run again on another process).
 */
final class WorkerGroup implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  /** How long worker processes may take to start and connect. */
  static final long READY_TIMEOUT_SECONDS = 120;

  private final WorkflowClient client;
  private final RealWorker.Spec spec;
  private final MeterRegistry registry;
  private final TemporalStack stack;
  private final Path log;
  private final List<Child> children = new CopyOnWriteArrayList<>();

  /** Warm worker processes waiting to replace a killed one (see {@link WorkerMain}). */
  private final List<Child> standbys = new CopyOnWriteArrayList<>();

  private RealWorker local;
  private long childCpuNanos;
  private int lost;
  private boolean closed;

  private WorkerGroup(
      WorkflowClient client,
      RealWorker.Spec spec,
      MeterRegistry registry,
      TemporalStack stack,
      Path log) {
    this.client = client;
    this.spec = spec;
    this.registry = registry;
    this.stack = stack;
    this.log = log;
  }

  /**
   * Gets the workers of one run ready: with one worker nothing yet; with several, starts the worker
   * processes and waits until each is connected to the Temporal service and polling. {@link #begin}
   * then starts them on the run's ledger.
   *
   * @param log where worker processes' output goes (appended), or null for this process's stderr
   * @param standbys how many standby processes to start beside them, each with the slots of the
   *     first worker (the one {@link #killOne} kills first), for {@link #replace} to start at once
   * @throws IllegalStateException if a worker process does not get ready in {@value
   *     #READY_TIMEOUT_SECONDS} s
   */
  static WorkerGroup prepare(
      TemporalStack stack,
      int workers,
      RealWorker.Spec spec,
      MeterRegistry registry,
      Path log,
      int standbys) {
    if (workers == 1) {
      return new WorkerGroup(stack.client(), spec, registry, stack, log);
    }
    if (spec.slots() < workers) {
      throw new IllegalArgumentException(
          "--workers must be at most the workload's slots ("
              + spec.slots()
              + " after scaling): the workers share them, got "
              + workers);
    }
    if (stack.target() == null) {
      throw new IllegalStateException(
          "worker processes need a Temporal service reachable on a port");
    }
    WorkerGroup group = new WorkerGroup(null, spec, registry, stack, log);
    try {
      for (int i = 0; i < workers; i++) {
        group.children.add(
            group.spawn(spec.slots() / workers + (i < spec.slots() % workers ? 1 : 0), false));
      }
      for (int i = 0; i < standbys; i++) {
        group.standbys.add(group.spawn(group.children.get(0).slots(), true));
      }
      for (Child child : group.children) {
        awaitLine(child, WorkerMain.READY);
      }
      for (Child child : group.standbys) {
        awaitLine(child, WorkerMain.READY);
      }
    } catch (RuntimeException e) {
      group.close();
      throw e;
    }
    return group;
  }

  /** Starts one worker process with {@code slots} slots (not yet ready), or a standby. */
  private Child spawn(int slots, boolean standby) {
    try {
      Path specFile = Files.createTempFile("bp-eval-spec", ".json");
      specFile.toFile().deleteOnExit();
      JSON.writeValue(specFile.toFile(), spec.withSlots(slots));
      Path out = Files.createTempFile("bp-eval-ledger", ".json");
      out.toFile().deleteOnExit();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> command =
          new ArrayList<>(
              List.of(
                  java,
                  "-Xmx256m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  WorkerMain.class.getName(),
                  specFile.toString(),
                  stack.target(),
                  stack.namespace(),
                  out.toString(),
                  stack.tls() ? WorkerMain.TLS : WorkerMain.PLAIN));
      if (standby) {
        command.add(WorkerMain.STANDBY);
      }
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectError(
                  log == null
                      ? ProcessBuilder.Redirect.INHERIT
                      : ProcessBuilder.Redirect.appendTo(log.toFile()));
      Process process = builder.start();
      return new Child(
          process,
          out,
          new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8),
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)),
          slots,
          new AtomicBoolean());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a worker process", e);
    }
  }

  /** Whether the workers run in processes of their own (so one can be killed). */
  boolean hasProcesses() {
    return !children.isEmpty();
  }

  /**
   * Kills one live worker process (SIGKILL), as a fault; its ledger is lost.
   *
   * @return the slots it had, or 0 when none was alive
   */
  int killOne() {
    for (Child child : children) {
      if (child.process.isAlive()) {
        child.process.destroyForcibly();
        return child.slots;
      }
    }
    return 0;
  }

  /**
   * Starts a replacement worker process with {@code slots} slots on {@code ledger}'s run and waits
   * until it polls: a standby of that many slots when one is waiting (it starts polling at once),
   * else a new process.
   */
  // A CopyOnWriteArrayList iterates over a snapshot; remove() claims the standby for this call.
  @SuppressWarnings("ModifyCollectionInEnhancedForLoop")
  void replace(int slots, Ledger ledger) {
    for (Child standby : standbys) {
      if (standby.slots() == slots && standbys.remove(standby)) {
        try {
          standby.in.write(WorkerMain.POLL + "\n");
          standby.in.flush();
        } catch (IOException e) {
          throw new UncheckedIOException("standby worker process ended early", e);
        }
        awaitLine(standby, WorkerMain.POLLING);
        standby.begun.set(true);
        children.add(standby);
        return;
      }
    }
    Child child = spawn(slots, false);
    children.add(child);
    awaitLine(child, WorkerMain.READY);
    sendOrigin(child, ledger);
  }

  /** Waits for {@code expected} as the next line {@code child} prints. */
  private static void awaitLine(Child child, String expected) {
    try {
      String line =
          CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return child.stdout.readLine();
                    } catch (IOException e) {
                      return null;
                    }
                  })
              .get(READY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (!expected.equals(line)) {
        throw new IllegalStateException(
            "a worker process ended before it was ready; see its messages"
                + (child.process.isAlive() ? "" : " (exit " + child.process.exitValue() + ")"));
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "a worker process was not connected after " + READY_TIMEOUT_SECONDS + " s");
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot read a worker process's output", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Starts the workers on {@code ledger}: the local worker, or each process at the ledger's origin.
   */
  void begin(Ledger ledger) {
    if (children.isEmpty()) {
      local = RealWorker.start(client, spec, ledger, registry);
      return;
    }
    for (Child child : children) {
      sendOrigin(child, ledger);
    }
    for (Child standby : standbys) {
      writeOrigin(standby, ledger);
    }
  }

  private static void sendOrigin(Child child, Ledger ledger) {
    writeOrigin(child, ledger);
    child.begun.set(true);
  }

  /** Tells {@code child} the run's origin; a standby takes part in the run only once it polls. */
  private static void writeOrigin(Child child, Ledger ledger) {
    try {
      child.in.write(ledger.originEpochNanos() + "\n");
      child.in.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("worker process ended early", e);
    }
  }

  /**
   * Closes every ledger at the ledger's current end and returns the merged record of the worker
   * processes still alive; a process that died (a fault, a crash) is counted in {@link #lost} and
   * its ledger is missing from the record. A replacement still starting up had no part in the run.
   * Call once, after {@code ledger.close(end)}.
   */
  Ledger.Snapshot snapshot(Ledger ledger) {
    if (children.isEmpty()) {
      return ledger.snapshot();
    }
    List<Ledger.Snapshot> parts = new ArrayList<>();
    for (Child child : children) {
      if (!child.begun.get()) {
        child.process.destroyForcibly();
        continue;
      }
      try (Writer w = child.in) {
        w.write(ledger.closedAt() + "\n");
      } catch (IOException e) {
        lost++;
        continue;
      }
      try {
        if (!child.process.waitFor(60, TimeUnit.SECONDS) || child.process.exitValue() != 0) {
          lost++;
          continue;
        }
        WorkerMain.Report report = JSON.readValue(child.out.toFile(), WorkerMain.Report.class);
        parts.add(report.snapshot());
        childCpuNanos += report.cpuNanos();
      } catch (IOException e) {
        lost++;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    return merge(parts);
  }

  /** Worker processes whose ledgers {@link #snapshot} could not collect (they died). */
  int lost() {
    return lost;
  }

  /** CPU time of the worker processes (known after {@link #snapshot}). */
  long childCpuNanos() {
    return childCpuNanos;
  }

  /** Several processes' ledgers as one: attempts together, calls joined by id. */
  static Ledger.Snapshot merge(List<Ledger.Snapshot> parts) {
    List<Ledger.Attempt> attempts = new ArrayList<>();
    Map<String, Ledger.Call> calls = new LinkedHashMap<>();
    for (Ledger.Snapshot part : parts) {
      attempts.addAll(part.attempts());
      for (Ledger.Call c : part.calls()) {
        calls.merge(
            c.callId(),
            c,
            (a, b) ->
                new Ledger.Call(
                    a.callId(),
                    a.queue(),
                    Math.min(a.submittedNanos(), b.submittedNanos()),
                    Math.max(a.finishedNanos(), b.finishedNanos()),
                    merged(a.outcome(), b.outcome()),
                    a.slotHeldNanos() + b.slotHeldNanos(),
                    a.deferrals() + b.deferrals(),
                    a.attempts() + b.attempts(),
                    earliest(a.firstAttemptNanos(), b.firstAttemptNanos())));
      }
    }
    return new Ledger.Snapshot(
        attempts,
        new ArrayList<>(calls.values()),
        concat(parts, Ledger.Snapshot::admissionNanos),
        concat(parts, Ledger.Snapshot::timerExcessNanos),
        concat(parts, Ledger.Snapshot::scheduleToStartNanos),
        concat(parts, Ledger.Snapshot::rejectionRoundTripNanos),
        parts.stream().mapToLong(Ledger.Snapshot::failedOpenAdmissions).sum(),
        parts.stream().flatMap(p -> p.sends().stream()).toList());
  }

  /** The outcome of a call two processes saw: any end over none, OK over the others. */
  private static Ledger.Outcome merged(Ledger.Outcome a, Ledger.Outcome b) {
    for (Ledger.Outcome o :
        List.of(Ledger.Outcome.OK, Ledger.Outcome.FAILED, Ledger.Outcome.EXPIRED)) {
      if (a == o || b == o) {
        return o;
      }
    }
    return Ledger.Outcome.UNFINISHED;
  }

  /** The earlier of two instants, -1 meaning none. */
  private static long earliest(long a, long b) {
    return a < 0 ? b : b < 0 ? a : Math.min(a, b);
  }

  private static long[] concat(List<Ledger.Snapshot> parts, Function<Ledger.Snapshot, long[]> f) {
    return parts.stream().flatMapToLong(p -> LongStream.of(f.apply(p))).toArray();
  }

  /** Stops every worker; idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (local != null) {
      local.close();
    }
    for (Child standby : standbys) {
      standby.process.destroyForcibly();
      standby.out.toFile().delete();
    }
    for (Child child : children) {
      child.process.destroy();
      try {
        child.process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      child.process.destroyForcibly();
      File out = child.out.toFile();
      out.delete();
    }
  }

  /**
   * One worker process; {@code begun} once it takes part in the run (it has the origin and polls).
   */
  private record Child(
      Process process,
      Path out,
      Writer in,
      BufferedReader stdout,
      int slots,
      AtomicBoolean begun) {}
}
