package io.backpressure.temporal;

import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The worker-side wiring of workflow-timed deferral. Register it on the worker factory that runs
 * the workflows and the gated activities:
 *
 * <pre>{@code
 * WorkerFactory factory = WorkerFactory.newInstance(client,
 *     WorkerFactoryOptions.newBuilder()
 *         .setWorkerInterceptors(BackpressureInterceptor.transparent(Duration.ofMinutes(5)))
 *         .build());
 * }</pre>
 *
 * <p>On the workflow side it marks the activity calls whose deferrals the workflow waits out (an
 * activity header), and on each re-run it passes the previous deferral's booking the same way. On
 * the activity side it reads those headers for {@link ActivityGate}. Two modes:
 *
 * <ul>
 *   <li>{@link #create()}: only calls made inside {@link Backpressure#run} are workflow-timed;
 *       every other gated activity uses the server's retry timer.
 *   <li>{@link #transparent(Duration)}: every activity call of every workflow on the worker is
 *       workflow-timed without any workflow change. A deferred call sleeps Δ on a durable timer and
 *       is scheduled again; the workflow's future completes only with the admitted run's result. An
 *       asynchronous caller stays asynchronous (the waiting happens in a workflow thread of its
 *       own). Turning it on for workflows already running is safe: see the version marker described
 *       on {@link Backpressure}.
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class BackpressureInterceptor extends WorkerInterceptorBase {

  private final @Nullable Duration transparentMaxWait;

  private BackpressureInterceptor(@Nullable Duration transparentMaxWait) {
    this.transparentMaxWait = transparentMaxWait;
  }

  /** Workflow-timed deferral for calls made inside {@link Backpressure#run} only. */
  public static BackpressureInterceptor create() {
    return new BackpressureInterceptor(null);
  }

  /**
   * Workflow-timed deferral for every activity call, with no workflow change.
   *
   * @param maxWait the bound per call: when the time deferred so far plus the next Δ would exceed
   *     it, the call fails with an {@link io.temporal.failure.ActivityFailure} whose cause is a
   *     {@value Backpressure#EXPIRED} failure; in (0, 365 days]
   */
  public static BackpressureInterceptor transparent(Duration maxWait) {
    return new BackpressureInterceptor(Backpressure.checkMaxWait(maxWait));
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public void init(WorkflowOutboundCallsInterceptor outboundCalls) {
        super.init(new DeferringOutbound(outboundCalls, transparentMaxWait));
      }
    };
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      @Override
      public ActivityOutput execute(ActivityInput input) {
        return ActivityScope.with(Headers.read(input.getHeader()), () -> super.execute(input));
      }
    };
  }
}
