package io.backpressure.eval.real;

import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.core.Ticker;
import io.backpressure.eval.sim.Configuration;
import io.backpressure.eval.sim.GateConfiguration;
import io.backpressure.eval.sim.GatewayConfiguration;
import io.backpressure.eval.sim.TemporalNativeConfiguration;
import io.backpressure.eval.sim.TimeModel;
import io.backpressure.eval.workload.Workload;
import io.backpressure.metrics.MeteredGate;
import io.backpressure.policy.yaml.PolicyYaml;
import io.backpressure.redis.RedisGateConfig;
import io.backpressure.redis.ResilientRedisGate;
import io.backpressure.temporal.ActivityGate;
import io.backpressure.temporal.BackpressureInterceptor;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One worker of a real run: a Temporal worker on the run's task queue with the workload's activity
 * slots, running {@link CallLoopImpl} and the configuration's activity against the provider over
 * HTTP. Built from a {@link Spec} so that a worker process ({@link WorkerMain}) builds the same
 * one.
 */
final class RealWorker implements AutoCloseable {
  /**
   * How long a workflow task waits on its worker's sticky queue before the server hands it to any
   * worker: the workflows whose cache died with a killed worker process continue on the others
   * after this, as their activities do after their heartbeat timeout ({@link
   * CallLoopImpl#GATED_HEARTBEAT_TIMEOUT}); Temporal's default of 5 s held them for that long (the
   * evaluation README, faults).
   */
  static final Duration STICKY_SCHEDULE_TO_START = Duration.ofSeconds(2);

  /**
   * How long a gated worker waits to reach Redis before it starts (deciding by its mode until
   * then).
   */
  static final Duration CONNECT_WAIT = Duration.ofSeconds(10);

  private final WorkerFactory factory;
  private final ProviderClient provider;
  private final AutoCloseable gate;

  private RealWorker(WorkerFactory factory, ProviderClient provider, AutoCloseable gate) {
    this.factory = factory;
    this.provider = provider;
    this.gate = gate;
  }

  /**
   * What a worker needs to know, all plain values (it travels to worker processes as JSON).
   *
   * @param taskQueue the run's task queue
   * @param providerBaseUrl the provider's {@code …/v1}
   * @param config the configuration's name
   * @param slots activity slots of this worker
   * @param dispatchPerSecond {@code tn}: the worker's activity dispatch rate; else null
   * @param rejectedCount whether the provider counts 429s
   * @param policyYaml gated configurations: the gate's policy; else null
   * @param meterRequests gated: whether the gate meters requests
   * @param meterTokens gated: whether the gate meters tokens
   * @param requestSlice {@code gateway}: per tenant, requests per 60 s; else null
   * @param tokenSlice {@code gateway}: per tenant, tokens per 60 s; else null
   * @param redisUrl the shared gate state, or null for this process's memory
   * @param redisPrefix the run's key prefix in Redis
   */
  record Spec(
      String taskQueue,
      String providerBaseUrl,
      String config,
      int slots,
      Double dispatchPerSecond,
      boolean rejectedCount,
      String policyYaml,
      boolean meterRequests,
      boolean meterTokens,
      double[] requestSlice,
      double[] tokenSlice,
      String redisUrl,
      String redisPrefix) {

    boolean gated() {
      return policyYaml != null;
    }

    /**
     * This spec on a task queue and a Redis key prefix of its own ({@code <name>-warm-up}), for a
     * worker that only loads and connects everything a worker uses ({@link WorkerMain}'s standby).
     */
    Spec warmUp() {
      return new Spec(
          taskQueue + "-warm-up",
          providerBaseUrl,
          config,
          slots,
          dispatchPerSecond,
          rejectedCount,
          policyYaml,
          meterRequests,
          meterTokens,
          requestSlice,
          tokenSlice,
          redisUrl,
          redisPrefix + "-warm-up");
    }

    /** This spec with {@code n} slots. */
    Spec withSlots(int n) {
      return new Spec(
          taskQueue,
          providerBaseUrl,
          config,
          n,
          dispatchPerSecond,
          rejectedCount,
          policyYaml,
          meterRequests,
          meterTokens,
          requestSlice,
          tokenSlice,
          redisUrl,
          redisPrefix);
    }
  }

  /**
   * The spec of {@code configuration} on {@code workload}; a gated configuration's policy widened
   * by {@code sendMargin} ({@link Policy#withSendMargin}).
   *
   * @throws IllegalArgumentException naming {@code --send-margin-ms} when a margin is given to a
   *     gated configuration without the safe window, which it would widen
   */
  static Spec spec(
      Workload workload,
      Configuration configuration,
      String taskQueue,
      String providerBaseUrl,
      int slots,
      String redisUrl,
      String redisPrefix,
      Duration sendMargin) {
    Workload.Upstream up = workload.upstream();
    boolean rejectedCount = up.rejectedCount();
    if (configuration instanceof GateConfiguration gate) {
      Policy policy = GateConfiguration.policy(workload, gate.variant());
      if (!sendMargin.isZero() && policy.safeWindow() == null) {
        throw new IllegalArgumentException(
            "--send-margin-ms needs a configuration with the safe window (not "
                + configuration.name()
                + ")");
      }
      policy = policy.withSendMargin(sendMargin);
      return new Spec(
          taskQueue,
          providerBaseUrl,
          configuration.name(),
          slots,
          null,
          rejectedCount,
          PolicyYaml.render(policy),
          up.requestsPerS() != null,
          GateConfiguration.metersTokensFor(workload, gate.variant()),
          null,
          null,
          redisUrl,
          redisPrefix);
    }
    if (configuration instanceof GatewayConfiguration) {
      return new Spec(
          taskQueue,
          providerBaseUrl,
          configuration.name(),
          slots,
          null,
          rejectedCount,
          null,
          false,
          false,
          GatewayConfiguration.requestSlices(workload),
          GatewayConfiguration.tokenSlices(workload),
          redisUrl,
          redisPrefix);
    }
    Double dispatch =
        configuration instanceof TemporalNativeConfiguration
            ? TemporalNativeConfiguration.dispatchPerSecond(workload)
            : null;
    return new Spec(
        taskQueue,
        providerBaseUrl,
        configuration.name(),
        slots,
        dispatch,
        rejectedCount,
        null,
        false,
        false,
        null,
        null,
        redisUrl,
        redisPrefix);
  }

  /**
   * Starts a worker for {@code spec}.
   *
   * @param registry where a gated worker's gate records its meters, or null for none
   */
  static RealWorker start(WorkflowClient client, Spec spec, Ledger ledger, MeterRegistry registry) {
    ProviderClient provider = new ProviderClient(spec.providerBaseUrl(), ledger);
    CallMode mode;
    AutoCloseable closeGate = () -> {};
    if (spec.gated()) {
      Policy policy = PolicyYaml.parse(spec.policyYaml());
      boolean fair = GateConfiguration.Variant.FAIR_QUEUING.label.equals(spec.config());
      Gate gate;
      if (spec.redisUrl() != null) {
        RedisGateConfig config =
            RedisLocation.builder(spec.redisUrl())
                .target(policy.target())
                .policy(policy)
                .keyPrefix(spec.redisPrefix())
                .fairQueuing(fair)
                .build();
        // The gate users are told to build: fails as --when-unavailable says, also at start-up (a
        // replacement worker may start while Redis is down).
        ResilientRedisGate resilient = ResilientRedisGate.open(config);
        resilient.awaitConnected(CONNECT_WAIT);
        closeGate = resilient;
        ledger.failedOpenFrom(resilient.failOpen()::ungatedDecisions);
        gate = resilient;
      } else {
        gate =
            fair
                ? InMemoryGate.createFairQueuing(policy, Ticker.system())
                : InMemoryGate.create(policy);
      }
      if (registry != null) {
        gate = MeteredGate.builder(gate, registry).policy(() -> policy).build();
      }
      TimedGate timed = new TimedGate(gate, ledger);
      DeadlineGate deadlines = new DeadlineGate(timed);
      ActivityGate activityGate =
          ActivityGate.builder(deadlines).waitInPlace(Duration.ZERO).build();
      OpenAiProvider openAi =
          new OpenAiProvider(
              spec.providerBaseUrl(),
              activityGate,
              deadlines,
              timed,
              spec.meterRequests(),
              spec.meterTokens(),
              ledger);
      AutoCloseable closeStore = closeGate;
      closeGate =
          () -> {
            openAi.close();
            closeStore.close();
          };
      mode = new CallMode.Gated(openAi, deadlines, spec.meterRequests(), spec.meterTokens());
    } else if (spec.requestSlice() != null) {
      mode =
          new CallMode.Proxy(
              new GatewaySlices(ledger, spec.requestSlice(), spec.tokenSlice()),
              TimeModel::sdkBackoffNanos);
    } else {
      mode = new CallMode.SdkRetry(TimeModel::sdkBackoffNanos);
    }
    WorkerFactoryOptions.Builder factoryOptions = WorkerFactoryOptions.newBuilder();
    if (spec.gated()) {
      factoryOptions.setWorkerInterceptors(BackpressureInterceptor.create());
    }
    WorkerFactory factory = WorkerFactory.newInstance(client, factoryOptions.build());
    WorkerOptions.Builder options =
        WorkerOptions.newBuilder()
            .setMaxConcurrentActivityExecutionSize(spec.slots())
            .setStickyQueueScheduleToStartTimeout(STICKY_SCHEDULE_TO_START)
            .setDefaultDeadlockDetectionTimeout(10_000);
    if (spec.dispatchPerSecond() != null) {
      options.setMaxWorkerActivitiesPerSecond(spec.dispatchPerSecond());
    }
    Worker worker = factory.newWorker(spec.taskQueue(), options.build());
    worker.registerWorkflowImplementationTypes(CallLoopImpl.class);
    worker.registerActivitiesImplementations(
        new UpstreamActivitiesImpl(mode, provider, ledger, spec.rejectedCount()));
    factory.start();
    return new RealWorker(factory, provider, closeGate);
  }

  @Override
  public void close() {
    factory.shutdownNow();
    factory.awaitTermination(5, TimeUnit.SECONDS);
    provider.close();
    try {
      gate.close();
    } catch (Exception e) {
      throw new IllegalStateException("cannot close the gate", e);
    }
  }
}
