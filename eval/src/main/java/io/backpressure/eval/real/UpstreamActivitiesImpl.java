package io.backpressure.eval.real;

import io.backpressure.core.Cost;
import io.backpressure.temporal.Backpressure;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The activity of every configuration: takes the slot, does what its {@link CallMode} says, and
 * records the slot time, every attempt, deferrals and the call's end in the {@link Ledger}. A gated
 * call reports the provider's answer (its status and rate-limit headers) to the gate's feedback.
 * Thread-safe: one instance serves all slots of a worker.
 */
public final class UpstreamActivitiesImpl implements UpstreamActivities {
  private final CallMode mode;
  private final ProviderClient provider;
  private final Ledger ledger;
  private final boolean rejectedCount;

  /**
   * @param rejectedCount whether the provider counts 429s against its window (the attempts' {@code
   *     counted} flag; the gated client releases a 429 as one request with no tokens)
   */
  public UpstreamActivitiesImpl(
      CallMode mode, ProviderClient provider, Ledger ledger, boolean rejectedCount) {
    this.mode = mode;
    this.provider = provider;
    this.ledger = ledger;
    this.rejectedCount = rejectedCount;
  }

  @Override
  public int call(CallInput call) {
    ActivityInfo info = Activity.getExecutionContext().getInfo();
    ledger.activityStarted(
        call, ledger.now(), ledger.fromEpochMillis(info.getCurrentAttemptScheduledTimestamp()));
    try {
      if (mode instanceof CallMode.Gated gated) {
        return gated(call, gated);
      }
      if (mode instanceof CallMode.Proxy proxy) {
        proxy.slices().acquire(call.queue());
        untilOk(call, proxy.backoff());
        proxy.slices().charge(call.queue(), call.totalTokens());
      } else {
        untilOk(call, ((CallMode.SdkRetry) mode).backoff());
      }
      ledger.finished(call, ledger.now(), true);
      return 200;
    } catch (IOException | InterruptedException e) {
      throw Activity.wrap(e);
    } finally {
      ledger.activityEnded(call, ledger.now());
    }
  }

  private void untilOk(CallInput call, Backoff backoff) throws IOException, InterruptedException {
    int failures = 0;
    while (true) {
      ProviderClient.Reply reply = send(call);
      if (reply.ok()) {
        return;
      }
      failures++;
      long sleep =
          backoff.sleepNanos(
              failures, reply.retryAfterNanos(), ThreadLocalRandom.current().nextDouble());
      Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
    }
  }

  private ProviderClient.Reply send(CallInput call) throws IOException, InterruptedException {
    ProviderClient.Reply reply = provider.send(call);
    ledger.attempt(call, reply, reply.ok() || (rejectedCount && !reply.serverError()));
    return reply;
  }

  /**
   * The call through the gated openai-java client ({@link OpenAiProvider}): admitted with the
   * workload's estimate and {@code max_tokens} and the call's remaining wait and deadline ({@link
   * DeadlineGate.Terms}), sent once, and released by the client with the answer's usage.
   */
  private int gated(CallInput call, CallMode.Gated gated) {
    long now = System.currentTimeMillis();
    DeadlineGate.Terms terms =
        new DeadlineGate.Terms(
            call.maxWait(now),
            call.deadline(now),
            cost(gated, call.promptTokens()),
            call.maxTokens());
    ProviderClient.Reply reply;
    try {
      reply = gated.deadlines().within(terms, () -> gated.provider().send(call));
    } catch (ApplicationFailure failure) {
      if (Backpressure.DEFERRED.equals(failure.getType())) {
        Long retryAfterMillis = failure.getDetails().get(0, Long.class);
        ledger.deferred(call, ledger.now(), retryAfterMillis == null ? 0 : retryAfterMillis);
      } else if (Backpressure.EXPIRED.equals(failure.getType())) {
        ledger.expired(call, ledger.now());
      } else {
        ledger.finished(call, ledger.now(), false);
      }
      throw failure;
    }
    ledger.attempt(call, reply, reply.ok() || (rejectedCount && !reply.serverError()));
    if (reply.serverError()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the provider answered 500 to an admitted call", UPSTREAM_500);
    }
    if (!reply.ok()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the provider answered 429 to an admitted call", UPSTREAM_429);
    }
    ledger.finished(call, ledger.now(), true);
    return 200;
  }

  private static Cost cost(CallMode.Gated gated, double tokens) {
    Cost cost = gated.requests() ? Cost.requests(1) : Cost.none();
    return gated.tokens() ? cost.tokens(tokens) : cost;
  }
}
