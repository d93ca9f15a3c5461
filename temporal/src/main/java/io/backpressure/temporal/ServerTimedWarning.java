package io.backpressure.temporal;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * The one WARN of a process whose deferrals fall back to the server's retry timer because no
 * workflow-side interceptor runs the activity. Thread-safe: of any number of concurrent calls to
 * {@link #deferredOnServerTimer}, exactly one logs.
 */
final class ServerTimedWarning {

  static final String MESSAGE =
      "an activity deferred by the admission gate (target {}) waits on the Temporal server's retry"
          + " timer because no BackpressureInterceptor runs it: each deferral is a failed attempt"
          + " that counts against the retry policy's maximumAttempts, so a call deferred that"
          + " often fails its workflow (RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED)."
          + " Register BackpressureInterceptor.create() on the worker"
          + " factory (WorkerFactoryOptions.setWorkerInterceptors), so the workflow waits on a"
          + " durable timer instead; see docs/temporal.md. Logged once per process.";

  private final Logger log;
  private final AtomicBoolean logged = new AtomicBoolean();

  ServerTimedWarning(Logger log) {
    this.log = log;
  }

  /** Logs {@link #MESSAGE} at WARN the first time it is called, and nothing after. */
  void deferredOnServerTimer(String target) {
    if (logged.compareAndSet(false, true)) {
      log.warn(MESSAGE, target);
    }
  }
}
