package io.backpressure.eval.real;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What the workers of one real run observed, in nanoseconds since the run's origin (a wall-clock
 * instant shared by every process of the run): every upstream attempt, every logical call's
 * progress, and the measured overheads (admission latency, timer lateness, schedule-to-start, 429
 * round trips). Thread-safe. After {@link #close(long)} it ignores further events, so activities
 * still running when the run ends cannot change the result.
 */
public final class Ledger {
  private volatile long originEpochNanos;
  private final List<Attempt> attempts = new ArrayList<>();
  private final List<Send> sends = new ArrayList<>();
  private final Map<String, Entry> calls = new LinkedHashMap<>();
  private final List<Long> gateNanos = new ArrayList<>();
  private final List<Long> timerExcessNanos = new ArrayList<>();
  private final List<Long> scheduleToStartNanos = new ArrayList<>();
  private final List<Long> rejectionRoundTripNanos = new ArrayList<>();
  private long closedAt = -1;
  private LongSupplier failedOpen = () -> 0;

  /** A ledger whose times count from {@code originEpochNanos} (nanoseconds since the epoch). */
  public Ledger(long originEpochNanos) {
    this.originEpochNanos = originEpochNanos;
  }

  /** The run's origin, in nanoseconds since the epoch. */
  public long originEpochNanos() {
    return originEpochNanos;
  }

  /**
   * Sets the run's origin of a ledger made before it was known (a worker process starts its worker
   * first, and learns the origin once every process is up). Nothing is recorded before the origin:
   * the run's workflows start at it.
   */
  public void originAt(long originEpochNanos) {
    this.originEpochNanos = originEpochNanos;
  }

  /** Nanoseconds since the epoch, with the wall clock's resolution (microseconds on Linux). */
  public static long epochNanos() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  /** Now, in nanoseconds since the run's origin. */
  public long now() {
    return epochNanos() - originEpochNanos;
  }

  /** {@code epochMillis} in nanoseconds since the run's origin. */
  public long fromEpochMillis(long epochMillis) {
    return epochMillis * 1_000_000L - originEpochNanos;
  }

  /**
   * An activity of {@code call} took a slot at {@code nowNanos}; it had been scheduled at {@code
   * scheduledNanos}.
   */
  synchronized void activityStarted(CallInput call, long nowNanos, long scheduledNanos) {
    if (closedAt >= 0) {
      return;
    }
    Entry e =
        calls.computeIfAbsent(
            call.callId(),
            id -> new Entry(call.queue(), fromEpochMillis(call.submittedEpochMillis())));
    e.slotSince = nowNanos;
    scheduleToStartNanos.add(nowNanos - scheduledNanos);
    if (e.timerDue >= 0) {
      timerExcessNanos.add(nowNanos - e.timerDue);
      e.timerDue = -1;
    }
  }

  /** The activity of {@code call} ended (its slot is free). */
  synchronized void activityEnded(CallInput call, long nowNanos) {
    Entry e = calls.get(call.callId());
    if (closedAt >= 0 || e == null || e.slotSince < 0) {
      return;
    }
    e.slotHeld += nowNanos - e.slotSince;
    e.slotSince = -1;
  }

  /** One upstream attempt of {@code call}. */
  synchronized void attempt(CallInput call, ProviderClient.Reply reply, boolean counted) {
    if (closedAt >= 0) {
      return;
    }
    attempts.add(
        new Attempt(
            call.queue(),
            reply.startNanos(),
            reply.endNanos(),
            reply.ok(),
            reply.boundDimension(),
            call.totalTokens(),
            counted,
            reply.status()));
    Entry e = calls.get(call.callId());
    if (e != null) {
      e.attempts++;
      if (e.firstAttempt < 0) {
        e.firstAttempt = reply.startNanos();
      }
    }
    if (!reply.ok() && !reply.serverError()) {
      rejectionRoundTripNanos.add(reply.endNanos() - reply.startNanos());
    }
  }

  /**
   * A gated call was admitted at {@code admittedNanos} and its request left the client at {@code
   * sentNanos}.
   */
  synchronized void sent(String callId, long admittedNanos, long sentNanos) {
    if (closedAt < 0) {
      sends.add(new Send(callId, admittedNanos, sentNanos));
    }
  }

  /** The gate deferred {@code call} by {@code retryAfterMillis}; the timer is due then. */
  synchronized void deferred(CallInput call, long nowNanos, long retryAfterMillis) {
    Entry e = calls.get(call.callId());
    if (closedAt >= 0 || e == null) {
      return;
    }
    e.deferrals++;
    e.timerDue = nowNanos + retryAfterMillis * 1_000_000L;
  }

  /**
   * Where the count of admissions the gate let through ungated (its state unavailable) is read at
   * the snapshot.
   */
  public synchronized void failedOpenFrom(LongSupplier count) {
    this.failedOpen = count;
  }

  /** One admission took {@code nanos}. */
  synchronized void admission(long nanos) {
    if (closedAt < 0) {
      gateNanos.add(nanos);
    }
  }

  /** {@code call} ended for good: {@code ok} for a 200, else failed. */
  synchronized void finished(CallInput call, long nowNanos, boolean ok) {
    ended(call, nowNanos, ok ? Outcome.OK : Outcome.FAILED);
  }

  /** The gate refused {@code call} for its deadline. */
  synchronized void expired(CallInput call, long nowNanos) {
    ended(call, nowNanos, Outcome.EXPIRED);
  }

  private void ended(CallInput call, long nowNanos, Outcome outcome) {
    Entry e = calls.get(call.callId());
    if (closedAt >= 0 || e == null) {
      return;
    }
    e.finished = nowNanos;
    e.outcome = outcome;
  }

  /**
   * Ends the ledger at {@code endNanos}: slots still held count up to it; later events are ignored.
   */
  public synchronized void close(long endNanos) {
    if (closedAt >= 0) {
      return;
    }
    for (Entry e : calls.values()) {
      if (e.slotSince >= 0) {
        e.slotHeld += Math.max(0, endNanos - e.slotSince);
        e.slotSince = -1;
      }
    }
    closedAt = endNanos;
  }

  /** Where {@link #close} ended the ledger, or -1 while it is open. */
  public synchronized long closedAt() {
    return closedAt;
  }

  /** What was recorded so far (the whole run after {@link #close}). */
  public synchronized Snapshot snapshot() {
    List<Call> list = new ArrayList<>();
    calls.forEach(
        (id, e) ->
            list.add(
                new Call(
                    id,
                    e.queue,
                    e.submitted,
                    e.finished,
                    e.outcome,
                    e.slotHeld,
                    e.deferrals,
                    e.attempts,
                    e.firstAttempt)));
    return new Snapshot(
        List.copyOf(attempts),
        list,
        longs(gateNanos),
        longs(timerExcessNanos),
        longs(scheduleToStartNanos),
        longs(rejectionRoundTripNanos),
        failedOpen.getAsLong(),
        List.copyOf(sends));
  }

  private static long[] longs(List<Long> values) {
    return values.stream().mapToLong(Long::longValue).toArray();
  }

  /** What became of a call. */
  public enum Outcome {
    OK,
    FAILED,
    EXPIRED,
    UNFINISHED
  }

  /**
   * One upstream attempt, as the worker saw it.
   *
   * @param queue the tenant's index
   * @param startNanos when it was sent
   * @param endNanos when its answer arrived
   * @param ok a 200
   * @param boundDimension on a 429, {@code requests} or {@code tokens}
   * @param tokens prompt plus completion tokens the call carried
   * @param counted whether the provider counted it against its window
   * @param status 200, 429, or 500 for an error unrelated to rate limits
   */
  public record Attempt(
      int queue,
      long startNanos,
      long endNanos,
      boolean ok,
      String boundDimension,
      double tokens,
      boolean counted,
      int status) {}

  /**
   * One gated request on its way to the provider: when the gate admitted it and when the client
   * sent it (the provider's own record says when it arrived).
   *
   * @param callId the {@code x-call-id} it carried
   * @param admittedNanos when the gate's admission returned
   * @param sentNanos when the HTTP client was handed the request
   */
  public record Send(String callId, long admittedNanos, long sentNanos) {}

  /**
   * One logical call.
   *
   * @param callId its id
   * @param queue the tenant's index
   * @param submittedNanos when the workflow submitted it
   * @param finishedNanos when it ended, or -1
   * @param outcome what became of it
   * @param slotHeldNanos the activity execution time of all its attempts
   * @param deferrals how many times the gate deferred it
   * @param attempts how many upstream attempts it made
   * @param firstAttemptNanos when its first upstream attempt was sent, or -1
   */
  public record Call(
      String callId,
      int queue,
      long submittedNanos,
      long finishedNanos,
      Outcome outcome,
      long slotHeldNanos,
      int deferrals,
      int attempts,
      long firstAttemptNanos) {}

  /**
   * Everything recorded, plus the measured overheads (nanoseconds, one sample per event).
   *
   * @param attempts every upstream attempt, in the order recorded
   * @param calls every call that reached a worker, in first-start order
   * @param admissionNanos the duration of each admission call
   * @param timerExcessNanos per deferral: the re-run's start minus the instant the timer was due
   *     (timer lateness plus dispatch plus any wait for a slot)
   * @param scheduleToStartNanos per activity execution: its start minus its scheduling (dispatch
   *     plus any wait for a slot; millisecond resolution)
   * @param rejectionRoundTripNanos per 429: the client-side round trip (the provider answers a 429
   *     at once, so this is the HTTP overhead)
   * @param failedOpenAdmissions admissions the fail-open gate let through ungated because the
   *     shared state did not answer
   * @param sends every gated request sent, with its admission instant, in the order recorded
   */
  public record Snapshot(
      List<Attempt> attempts,
      List<Call> calls,
      long[] admissionNanos,
      long[] timerExcessNanos,
      long[] scheduleToStartNanos,
      long[] rejectionRoundTripNanos,
      long failedOpenAdmissions,
      List<Send> sends) {}

  private static final class Entry {
    final int queue;
    final long submitted;
    long finished = -1;
    Outcome outcome = Outcome.UNFINISHED;
    long slotHeld;
    long slotSince = -1;
    long timerDue = -1;
    long firstAttempt = -1;
    int deferrals;
    int attempts;

    Entry(int queue, long submitted) {
      this.queue = queue;
      this.submitted = submitted;
    }
  }
}
