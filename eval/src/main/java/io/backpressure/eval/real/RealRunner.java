package io.backpressure.eval.real;

import io.backpressure.core.Dimension;
import io.backpressure.eval.measure.FaultWindows;
import io.backpressure.eval.measure.Recorder;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.measure.UpstreamWindows;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.GateConfiguration;
import io.backpressure.eval.sim.Runner;
import io.backpressure.eval.sim.TemporalNativeConfiguration;
import io.backpressure.eval.workload.Fault;
import io.backpressure.eval.workload.TraceArrivals;
import io.backpressure.eval.workload.Workload;
import io.backpressure.mock.CompletionTokens;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.OutsideTraffic;
import io.backpressure.mock.limit.WindowModel;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * {@code --mode real}: runs a workload on the real stack and records it into the same {@link
 * Recording} the simulator produces, so metrics, summaries, reports and plots are shared.
 *
 * <h2>One run</h2>
 *
 * <ol>
 *   <li>The mock provider starts on a loopback port with the workload's caps, window model and
 *       latency; it generates exactly the completion each call asks for ({@code max_tokens}).
 *   <li>Workers start on a fresh task queue of the {@link TemporalStack} with the workload's slots
 *       (in this process, or {@code workers} processes sharing the gate through Redis).
 *   <li>Every closed-loop workflow of the workload becomes one {@code CallLoop} workflow; open-loop
 *       tenants start one-call workflows at Poisson times. Workflows start at the run's origin
 *       (plus each tenant's {@code start_s}).
 *   <li>At {@code duration_s} the run ends: the ledger is closed (slots still held count up to the
 *       end), the workers stop and the run's workflows are terminated.
 * </ol>
 *
 * Times come from the wall clock. A run is not repeatable event for event: repeats vary by seed
 * (token draws, arrivals, the mock's latency draws) and by scheduling.
 */
public final class RealRunner implements Runner {
  /**
   * Time allowed to start the workers (worker processes are already up and connected) before the
   * origin.
   */
  private static final long SETUP_NANOS = 2_000_000_000L;

  private final Function<String, TemporalStack> stackFactory;
  private final String redisUrl;
  private final int workers;
  private final MeterRegistry registry;
  private final AutoCloseable endpoint;
  private final Path workersLog;
  private final OwnedRedis ownedRedis;
  private final List<Fault> faults;
  private final Duration sendMargin;
  private final List<String> injected = new ArrayList<>();
  private TemporalStack stack;

  /**
   * @param stackFactory opens the Temporal stack on first use (its argument is unused)
   * @param redisUrl the shared gate state, or null for memory
   * @param workers worker processes; above 1 requires {@code redisUrl}
   * @param registry where gates record meters, or null
   * @param endpoint what serves {@code registry}, closed with the runner; or null
   * @param workersLog where worker processes' output goes, or null for the terminal
   * @param ownedRedis the redis-server the harness owns ({@code --redis auto}), closed with the
   *     runner; or null
   * @param faults injected into every run
   * @param sendMargin the gated configurations' margin for send-delay variation (the core's {@code
   *     Policy.withSendMargin}), zero for none
   */
  RealRunner(
      Function<String, TemporalStack> stackFactory,
      String redisUrl,
      int workers,
      MeterRegistry registry,
      AutoCloseable endpoint,
      Path workersLog,
      OwnedRedis ownedRedis,
      List<Fault> faults,
      Duration sendMargin) {
    this.sendMargin = sendMargin;
    this.ownedRedis = ownedRedis;
    this.faults = List.copyOf(faults);
    this.endpoint = endpoint;
    this.workersLog = workersLog;
    this.stackFactory = stackFactory;
    this.redisUrl = redisUrl;
    this.workers = workers;
    this.registry = registry;
  }

  @Override
  public String mode() {
    return "real";
  }

  /** What the runs are measured on. */
  public synchronized String describe() {
    return stack().describe()
        + (workers > 1 ? ", " + workers + " worker processes" : ", 1 worker")
        + (redisUrl != null ? ", gate state in Redis" : ", gate state in memory");
  }

  private synchronized TemporalStack stack() {
    if (stack == null) {
      stack = stackFactory.apply("");
    }
    return stack;
  }

  @Override
  public synchronized Recording run(Workload workload, Configuration configuration, long seed) {
    WorkflowClient client = stack().client();
    String runId = UUID.randomUUID().toString().substring(0, 8);
    String taskQueue = "bp-eval-" + workload.name() + "-" + configuration.name() + "-" + runId;
    long cpuBefore = processCpuNanos();
    long wallBefore = System.nanoTime();
    try (MockProvider provider = MockProvider.start(mockConfig(workload, seed));
        WorkerGroup group =
            WorkerGroup.prepare(
                stack(),
                workers,
                RealWorker.spec(
                    workload,
                    configuration,
                    taskQueue,
                    provider.baseUrl(),
                    workload.slots(),
                    redisUrl,
                    "bp-eval-" + runId,
                    sendMargin),
                registry,
                workersLog,
                workers > 1 ? replacements(faults) : 0)) {
      long origin = Ledger.epochNanos() + SETUP_NANOS;
      Ledger ledger = new Ledger(origin);
      group.begin(ledger);
      long providerToRunNanos = provider.nanosSinceStart() - ledger.now();
      FaultInjector injector = new FaultInjector(faults, ownedRedis, group, ledger, provider);
      ProviderSchedule schedule = new ProviderSchedule(workload.upstream(), provider, ledger);
      Recorder recorder = new Recorder(workload.tenants().size());
      List<WorkflowStub> started = new ArrayList<>();
      List<Thread> arrivals = new ArrayList<>();
      SplittableRandom random = new SplittableRandom(seed);
      long endNanos = Workload.nanos(workload.durationS());
      sleepUntil(ledger, 0);
      for (int q = 0; q < workload.tenants().size(); q++) {
        Workload.Tenant t = workload.tenants().get(q);
        LoopInput template =
            input(
                workload,
                configuration,
                q,
                t,
                origin,
                t.openLoop() ? 1 : t.callsPerWorkflow(),
                0,
                stack().isTestServer());
        if (t.replaysTrace()) {
          arrivals.add(
              traceLoop(
                  client,
                  taskQueue,
                  runId,
                  q,
                  t,
                  template,
                  random.split(),
                  ledger,
                  started,
                  endNanos));
        } else if (t.openLoop()) {
          arrivals.add(
              openLoop(
                  client,
                  taskQueue,
                  runId,
                  q,
                  t,
                  template,
                  random.split(),
                  ledger,
                  started,
                  endNanos));
        } else {
          AtomicInteger running = new AtomicInteger(t.workflows());
          int queue = q;
          for (int w = 0; w < t.workflows(); w++) {
            LoopInput in = withSeed(template, random.nextLong());
            WorkflowStub stub =
                startAt(
                    client,
                    taskQueue,
                    runId + "-q" + q + "-w" + w,
                    in,
                    Workload.nanos(t.startS()),
                    ledger);
            synchronized (started) {
              started.add(stub);
            }
            long stopAt = t.stopS() == null ? Long.MAX_VALUE : Workload.nanos(t.stopS());
            // The callback only stamps the queue's end, which cannot fail; the calls themselves
            // are in the ledger, whatever becomes of the workflow.
            CompletableFuture<?> unused =
                stub.getResultAsync(Long.class)
                    .whenComplete(
                        (r, e) -> {
                          long now = ledger.now();
                          if (running.decrementAndGet() == 0 && now < stopAt) {
                            synchronized (recorder) {
                              recorder.queueFinished(queue, now);
                            }
                          }
                        });
          }
        }
      }
      sleepUntil(ledger, endNanos);
      schedule.close();
      injector.close();
      injected.addAll(injector.done());
      List<FaultWindows.Span> spans =
          faults.stream().map(f -> FaultWindows.Span.of(f, injector.steps())).toList();
      ledger.close(endNanos);
      arrivals.forEach(Thread::interrupt);
      double cpu =
          (processCpuNanos() - cpuBefore + group.childCpuNanos())
              / ((System.nanoTime() - wallBefore)
                  * (double) Runtime.getRuntime().availableProcessors());
      Ledger.Snapshot snapshot = group.snapshot(ledger);
      group.close();
      terminate(started);
      List<RequestRecord> records = provider.records();
      if (workersLog != null && !snapshot.sends().isEmpty()) {
        SendDelays.write(
            workersLog.resolveSibling("send-times-" + configuration.name() + "-" + runId + ".csv"),
            SendDelays.join(snapshot.sends(), records, providerToRunNanos));
      }
      Map<String, Double> perWindow = ProviderWindows.maxPerWindow(workload, records);
      FaultWindows.Result faultWindows =
          faults.isEmpty()
              ? null
              : faultWindows(workload, spans, records, providerToRunNanos, endNanos);
      Map<String, Double> bound =
          UpstreamWindows.bound(
              workload,
              GateConfiguration.policy(
                  workload,
                  configuration instanceof GateConfiguration gate
                      ? gate.variant()
                      : GateConfiguration.Variant.FULL));
      synchronized (recorder) {
        return toRecording(
            recorder,
            snapshot,
            endNanos,
            cpu,
            workload.slots(),
            perWindow,
            bound,
            group.lost(),
            faultWindows);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the mock provider", e);
    }
  }

  private static Recording toRecording(
      Recorder recorder,
      Ledger.Snapshot snapshot,
      long endNanos,
      double cpu,
      int slots,
      Map<String, Double> upstreamMaxPerWindow,
      Map<String, Double> upstreamWindowBound,
      int workersLost,
      FaultWindows.Result faultWindows) {
    snapshot.attempts().stream()
        .sorted(Comparator.comparingLong(Ledger.Attempt::startNanos))
        .forEach(
            a ->
                recorder.attempt(
                    new Recording.Attempt(
                        a.queue(),
                        a.startNanos(),
                        a.endNanos(),
                        a.status(),
                        a.boundDimension(),
                        a.tokens(),
                        a.counted())));
    snapshot.calls().stream()
        .sorted(Comparator.comparingLong(Ledger.Call::submittedNanos))
        .forEach(
            c ->
                recorder.call(
                    new Recording.Call(
                        c.queue(),
                        c.submittedNanos(),
                        c.finishedNanos(),
                        Recording.Outcome.valueOf(c.outcome().name()),
                        c.slotHeldNanos(),
                        c.deferrals(),
                        c.attempts(),
                        c.firstAttemptNanos())));
    return recorder.finish(
        endNanos,
        new Recording.Measured(
            snapshot.admissionNanos(),
            snapshot.timerExcessNanos(),
            snapshot.scheduleToStartNanos(),
            snapshot.rejectionRoundTripNanos(),
            cpu,
            slots,
            upstreamMaxPerWindow,
            upstreamWindowBound,
            snapshot.failedOpenAdmissions(),
            workersLost,
            faultWindows));
  }

  /**
   * The provider's requests of this run (200s, 429s and 500s; 400s are malformed and not counted),
   * on the run's clock, against the workload's own share of the requests cap ({@link
   * FaultWindows}).
   *
   * @param providerToRunNanos subtracted from a record's time to give the run's
   */
  private List<FaultWindows.Arrival> arrivals(
      List<RequestRecord> records, long providerToRunNanos) {
    return records.stream()
        .filter(r -> r.status() == 200 || r.status() == 429 || r.status() == 500)
        .map(
            r ->
                new FaultWindows.Arrival(
                    r.arrivalNanos() - providerToRunNanos,
                    r.status() == 200,
                    r.finishNanos() - providerToRunNanos))
        .toList();
  }

  private FaultWindows.Result faultWindows(
      Workload workload,
      List<FaultWindows.Span> spans,
      List<RequestRecord> records,
      long providerToRunNanos,
      long endNanos) {
    Workload.Upstream up = workload.upstream();
    double cap =
        up.requestsPerS() == null
            ? 0
            : (up.requestsPerS() - up.outsideOf(Dimension.REQUESTS)) * up.periodS();
    return FaultWindows.of(
        spans,
        arrivals(records, providerToRunNanos),
        cap,
        Workload.nanos(up.periodS()),
        Workload.nanos(workload.warmupS()),
        endNanos);
  }

  /**
   * The mock provider for {@code workload}: its caps at t = 0, window, latency, outside traffic and
   * error rate; completions as asked. (The schedule is applied on the run's clock: {@link
   * ProviderSchedule}.)
   *
   * @throws IllegalArgumentException for a {@code latency_schedule} or calendar limits (the gate's
   *     {@code per_day}, {@code per_month} or {@code quotas}, the provider's {@code per_day}),
   *     which only the simulator models
   */
  static MockProviderConfig mockConfig(Workload workload, long seed) {
    Workload.Upstream up = workload.upstream();
    if (!up.latencySchedule().isEmpty()) {
      throw new IllegalArgumentException(
          "upstream.latency_schedule is modelled by the simulator only (--mode sim); the mock"
              + " provider's latency does not change during a run");
    }
    if (workload.followsCalendar()) {
      throw new IllegalArgumentException(
          "gate.per_day, gate.per_month, gate.quotas and upstream.per_day are modelled by the"
              + " simulator only (--mode sim), whose clock starts at start_at; a real run's"
              + " calendar is the wall clock's");
    }
    WindowModel model = WindowModel.parse(up.window());
    Duration period = Duration.ofNanos(Math.round(up.periodS() * 1e9));
    MockProviderConfig.Builder builder =
        MockProviderConfig.builder()
            .latencyMs((int) Math.round(up.latencyMinMs()), (int) Math.round(up.latencyMaxMs()))
            .rejectedCount(up.rejectedCount())
            .completionTokens(new CompletionTokens.Fixed(CompletionTokens.MAX))
            .seed(seed);
    if (up.requestsPerS() != null) {
      builder.requests(LimitSpec.of(model, up.requestsPerS() * up.periodS(), period));
    }
    if (up.tokensPerS() != null) {
      builder.tokens(LimitSpec.of(model, up.tokensPerS() * up.periodS(), period));
    }
    double outsideRequests = up.outsideOf(Dimension.REQUESTS);
    if (outsideRequests > 0) {
      builder.outside(new OutsideTraffic(outsideRequests, up.outsideOf(Dimension.TOKENS)));
    }
    return builder.errorRate(up.errorRate()).build();
  }

  private static LoopInput input(
      Workload workload,
      Configuration configuration,
      int q,
      Workload.Tenant t,
      long origin,
      long calls,
      long seed,
      boolean fifoTickets) {
    long stopAt = t.stopS() == null ? 0 : (origin + Workload.nanos(t.stopS())) / 1_000_000L;
    int rank = workload.classIndex(t.priority());
    boolean gated = configuration instanceof GateConfiguration;
    int classKey =
        configuration instanceof TemporalNativeConfiguration
            ? TemporalNativeConfiguration.priorityKey(rank)
            : 0;
    Double classWait = workload.priorities().get(rank).maxWaitS();
    return new LoopInput(
        q,
        t.name(),
        t.priority(),
        rank,
        calls,
        stopAt,
        t.promptTokens().min(),
        t.promptTokens().max(),
        t.completionTokens().min(),
        t.completionTokens().max(),
        t.maxTokens(),
        seed,
        gated,
        classKey,
        fifoTickets ? origin / 1_000_000L : 0,
        t.deadlineS() == null ? 0 : Math.round(t.deadlineS() * 1000),
        classWait == null ? 0 : Math.round(classWait * 1000),
        Math.round(GateConfiguration.answerMarginNanos(workload) / 1e6),
        startToCloseMillis(workload, gated));
  }

  /**
   * How many killed workers the faults replace ({@code worker-kill@T+D}): a standby process for
   * each is started with the others, so a replacement polls at once ({@link WorkerMain}).
   */
  static int replacements(List<Fault> faults) {
    return (int)
        faults.stream().filter(f -> f.kind().equals("worker-kill") && f.durationS() > 0).count();
  }

  /** The least start-to-close timeout of a gated activity. */
  static final long GATED_START_TO_CLOSE_MIN_MILLIS = 5_000;

  /** The start-to-close timeout of an activity that retries inside itself: 30 minutes. */
  static final long RETRYING_START_TO_CLOSE_MILLIS = 30 * 60_000;

  /**
   * How long one activity may run before Temporal gives it up and runs it again. A gated activity
   * ({@code bp*}) is one admission and one send: it is given three times the provider's slowest
   * answer under {@code provider-slow} ({@value FaultInjector#SLOW_FACTOR} times the workload's
   * longest latency), at least {@value #GATED_START_TO_CLOSE_MIN_MILLIS} ms; the calls whose
   * activities died with a killed worker process come back on the surviving workers sooner, at the
   * heartbeat timeout ({@link CallLoopImpl#GATED_HEARTBEAT_TIMEOUT}; the evaluation README,
   * faults). The other configurations retry inside the activity for as long as the provider
   * refuses: {@value #RETRYING_START_TO_CLOSE_MILLIS} ms.
   */
  static long startToCloseMillis(Workload workload, boolean gated) {
    if (!gated) {
      return RETRYING_START_TO_CLOSE_MILLIS;
    }
    long slowest = Math.round(FaultInjector.SLOW_FACTOR * workload.upstream().latencyMaxMs());
    return Math.max(GATED_START_TO_CLOSE_MIN_MILLIS, 3 * slowest);
  }

  private static LoopInput withSeed(LoopInput in, long seed) {
    return with(in, in.promptMin(), in.promptMax(), in.completionMin(), in.completionMax(), seed);
  }

  private static WorkflowStub startAt(
      WorkflowClient client,
      String taskQueue,
      String id,
      LoopInput in,
      long atNanos,
      Ledger ledger) {
    sleepUntil(ledger, atNanos);
    CallLoop loop =
        client.newWorkflowStub(
            CallLoop.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(taskQueue)
                .setWorkflowId(id)
                .setWorkflowExecutionTimeout(Duration.ofHours(6))
                .build());
    WorkflowClient.start(loop::run, in);
    return WorkflowStub.fromTyped(loop);
  }

  /** Starts the Poisson arrivals of an open-loop tenant on a thread of their own. */
  private static Thread openLoop(
      WorkflowClient client,
      String taskQueue,
      String runId,
      int q,
      Workload.Tenant t,
      LoopInput template,
      SplittableRandom random,
      Ledger ledger,
      List<WorkflowStub> started,
      long endNanos) {
    long stop = t.stopS() == null ? endNanos : Math.min(endNanos, Workload.nanos(t.stopS()));
    Thread thread =
        new Thread(
            () -> {
              long next = Workload.nanos(t.startS());
              int i = 0;
              while (true) {
                next += Workload.nanos(-Math.log(1 - random.nextDouble()) / t.openLoopRps());
                if (next >= stop || Thread.currentThread().isInterrupted()) {
                  break;
                }
                WorkflowStub stub =
                    startAt(
                        client,
                        taskQueue,
                        runId + "-q" + q + "-a" + i++,
                        withSeed(template, random.nextLong()),
                        next,
                        ledger);
                synchronized (started) {
                  started.add(stub);
                }
              }
            },
            "open-loop-" + t.name());
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /**
   * Starts the arrivals of a trace tenant on a thread of their own: one workflow of one call per
   * row, at the row's time, with the row's prompt and completion tokens.
   */
  private static Thread traceLoop(
      WorkflowClient client,
      String taskQueue,
      String runId,
      int q,
      Workload.Tenant t,
      LoopInput template,
      SplittableRandom random,
      Ledger ledger,
      List<WorkflowStub> started,
      long endNanos) {
    TraceArrivals trace = t.trace();
    Thread thread =
        new Thread(
            () -> {
              for (int i = 0; i < trace.size(); i++) {
                long at = Workload.nanos(trace.atS(i));
                if (at >= endNanos || Thread.currentThread().isInterrupted()) {
                  break;
                }
                long prompt = trace.prompt(i);
                long completion = trace.completion(i);
                LoopInput in =
                    with(template, prompt, prompt, completion, completion, random.nextLong());
                WorkflowStub stub =
                    startAt(client, taskQueue, runId + "-q" + q + "-a" + i, in, at, ledger);
                synchronized (started) {
                  started.add(stub);
                }
              }
            },
            "trace-" + t.name());
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /** {@code in} with the given size ranges (tokens, both ends included) and seed. */
  private static LoopInput with(
      LoopInput in,
      long promptMin,
      long promptMax,
      long completionMin,
      long completionMax,
      long seed) {
    return new LoopInput(
        in.queue(),
        in.tenant(),
        in.priority(),
        in.classRank(),
        in.calls(),
        in.stopAtEpochMillis(),
        promptMin,
        promptMax,
        completionMin,
        completionMax,
        in.maxTokens(),
        seed,
        in.gated(),
        in.classKey(),
        in.fifoOriginEpochMillis(),
        in.deadlineMillis(),
        in.classMaxWaitMillis(),
        in.answerMarginMillis(),
        in.startToCloseMillis());
  }

  private static void sleepUntil(Ledger ledger, long nanos) {
    long wait;
    while ((wait = nanos - ledger.now()) > 0) {
      try {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void terminate(List<WorkflowStub> started) {
    List<WorkflowStub> copy;
    synchronized (started) {
      copy = new ArrayList<>(started);
    }
    for (WorkflowStub stub : copy) {
      try {
        stub.terminate("evaluation run ended");
      } catch (RuntimeException alreadyClosed) {
        // A workflow that completed on its own cannot be terminated; nothing to do.
      }
    }
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** The faults given, as on the command line. */
  @Override
  public List<String> faults() {
    return faults.stream().map(Fault::toString).toList();
  }

  /** Every fault step injected so far, with its time in its run. */
  public synchronized List<String> injected() {
    return List.copyOf(injected);
  }

  @Override
  public synchronized void close() {
    if (ownedRedis != null) {
      ownedRedis.close();
    }
    if (stack != null) {
      stack.close();
      stack = null;
    }
    if (endpoint != null) {
      try {
        endpoint.close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot stop the metrics endpoint", e);
      }
    }
  }
}
