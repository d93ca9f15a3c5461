package io.backpressure.eval.sim;

import io.backpressure.core.EpochClock;
import io.backpressure.core.RejectReason;
import io.backpressure.core.Ticker;
import io.backpressure.eval.measure.Recorder;
import io.backpressure.eval.measure.Recording;
import io.backpressure.eval.workload.TraceArrivals;
import io.backpressure.eval.workload.Workload;
import io.backpressure.mock.limit.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * One deterministic discrete-event run of a workload against one configuration, in virtual time.
 *
 * <h2>The model</h2>
 *
 * Tenants submit calls: a closed-loop tenant runs {@code workflows} workflows, each submitting its
 * next call when the previous one ends; an open-loop tenant submits one call per Poisson arrival; a
 * trace tenant submits one call per row of its trace, at the row's time and with the row's sizes. A
 * call runs as an activity: it is dispatched (costing {@link TimeModel#DISPATCH_NANOS}), waits in
 * the configuration's {@link Dispatch} (FIFO, or priority order and rate-limited for {@code tn})
 * for one of the workload's {@code slots} worker slots, and once it holds one, the configuration's
 * {@link ActivityBehaviour} decides what happens: send upstream, sleep on the slot, defer onto a
 * durable timer (freeing the slot), succeed. The upstream is the mock provider's limiter with the
 * workload's latency ({@link SimUpstream}); timing constants are in {@link TimeModel}. A tenant
 * with {@code deadline_s} gives each call up at its deadline ({@link #giveUp}). A closed-loop
 * workflow whose call the gate refused until a limit resets (a calendar window or a quota: {@code
 * Admission.Rejected} with its reset instant) sleeps until that instant before its next call, as a
 * workflow that chooses to wait for the reset does; an open-loop tenant's arrivals go on.
 *
 * <h2>Determinism</h2>
 *
 * Events run in (time, sequence number) order on one thread; all randomness comes from streams
 * split in a fixed order from the run's seed (latency, backoff jitter, timer lateness, then per
 * tenant: token sizes and arrivals, then the provider's errors), and nothing reads the wall clock.
 * The same seed therefore gives the same {@link Recording}, event for event. Per-tenant token
 * streams also mean that every configuration meets the same sequence of call sizes for the same
 * seed.
 *
 * <p>Not thread-safe; one instance runs once.
 */
final class Simulation implements ActivityContext {
  private final long endNanos;

  /** Virtual time, nanoseconds from the run's start: the time of the event being handled. */
  private long nanos;

  /** The gate's clock: virtual time, which moves only from one event to the next. */
  private final Ticker clock = () -> nanos;

  /** The workload's {@code start_at}, in nanoseconds since the Unix epoch. */
  private final long startEpochNanos;

  /** The calendar: {@code start_at} advanced by the virtual clock. */
  private final EpochClock calendar;

  private final PriorityQueue<Event> events = new PriorityQueue<>();
  private final Recorder recorder;
  private final SimUpstream upstream;
  private final SplittableRandom jitterRandom;
  private final SplittableRandom timerRandom;
  private final QueueState[] queues;
  private final List<SimCall> calls = new ArrayList<>();
  private final Dispatch dispatch;
  private final ActivityBehaviour behaviour;
  private long eventSequence;
  private long callSequence;
  private int freeSlots;
  private boolean pumping;
  private long wakeAt = Long.MAX_VALUE;

  Simulation(Workload workload, Configuration configuration, long seed) {
    this.endNanos = Workload.nanos(workload.durationS());
    this.startEpochNanos = Duration.between(Instant.EPOCH, workload.startAt()).toNanos();
    this.calendar = () -> startEpochNanos + nanos;
    this.recorder = new Recorder(workload.tenants().size());
    SplittableRandom root = new SplittableRandom(seed);
    SplittableRandom latencyRandom = root.split();
    this.jitterRandom = root.split();
    this.timerRandom = root.split();
    this.queues = new QueueState[workload.tenants().size()];
    for (int i = 0; i < queues.length; i++) {
      Workload.Tenant tenant = workload.tenants().get(i);
      queues[i] =
          new QueueState(
              i, tenant, workload.classIndex(tenant.priority()), root.split(), root.split());
    }
    this.upstream =
        new SimUpstream(workload.upstream(), workload.startAt(), latencyRandom, root.split());
    this.freeSlots = workload.slots();
    this.dispatch = configuration.dispatch(workload);
    this.behaviour = configuration.behaviour(workload, this);
  }

  /** Runs the workload to its duration and returns what happened. */
  Recording run() {
    return run(percent -> {});
  }

  /**
   * Runs the workload to its duration and returns what happened, telling {@code progress} each
   * whole percent of the run's virtual time reached (1 to 100, each once, in order, on this
   * thread).
   */
  Recording run(IntConsumer progress) {
    for (QueueState q : queues) {
      long start = Workload.nanos(q.tenant.startS());
      if (q.tenant.replaysTrace()) {
        scheduleTraceArrival(q, 0);
      } else if (q.tenant.openLoop()) {
        scheduleArrival(q, start);
      } else {
        q.runningWorkflows = q.tenant.workflows();
        for (int w = 0; w < q.tenant.workflows(); w++) {
          Workflow workflow = new Workflow(q, q.tenant.callsPerWorkflow());
          at(start, () -> submit(q, workflow));
        }
      }
    }
    int percent = 0;
    while (!events.isEmpty() && events.peek().time < endNanos) {
      Event e = events.poll();
      nanos = e.time;
      e.action.run();
      while (percent < 99 && e.time >= (percent + 1) * (endNanos / 100)) {
        progress.accept(++percent);
      }
    }
    nanos = endNanos;
    while (percent < 100) {
      progress.accept(++percent);
    }
    for (SimCall call : calls) {
      if (call.holdsSlot()) {
        call.slotHeldNanos += endNanos - call.slotSinceNanos;
      }
      recorder.call(
          new Recording.Call(
              call.queue,
              call.submittedNanos,
              call.finishedNanos,
              call.outcome,
              call.slotHeldNanos,
              call.deferrals,
              call.attempts,
              call.firstAttemptNanos,
              call.rejectReason,
              call.resetAtNanos));
    }
    return recorder.finish(endNanos);
  }

  // ---- ActivityContext -------------------------------------------------------------------------

  @Override
  public long now() {
    return nanos;
  }

  @Override
  public Ticker clock() {
    return clock;
  }

  @Override
  public EpochClock calendar() {
    return calendar;
  }

  @Override
  public void after(SimCall call, long delayNanos, Runnable action) {
    at(
        plus(now(), delayNanos),
        () -> {
          if (call.ended()) {
            freeSlot(call);
          } else {
            action.run();
          }
        });
  }

  @Override
  public void send(SimCall call, Consumer<Reply> onReply) {
    if (call.ended()) {
      freeSlot(call);
      return;
    }
    long now = now();
    call.attempts++;
    if (call.firstAttemptNanos < 0) {
      call.firstAttemptNanos = now;
    }
    double tokens = call.totalTokens();
    SimUpstream.Answer answer = upstream.arrive(now, tokens);
    Verdict verdict = answer.verdict();
    boolean counted = verdict.admitted() || (upstream.rejectedCount() && !answer.dayLimited());
    if (verdict.admitted()) {
      long done = plus(now, upstream.latencyNanos(now));
      if (answer.status() != 200) {
        call.rejections++;
      }
      recorder.attempt(
          new Recording.Attempt(
              call.queue, now, done, answer.status(), null, tokens, counted, call.promptTokens));
      at(done, () -> onReply.accept(new Reply(answer.status(), 0, null, answer.headers(), null)));
    } else {
      call.rejections++;
      recorder.attempt(
          new Recording.Attempt(
              call.queue,
              now,
              now,
              429,
              verdict.boundDimension(),
              tokens,
              counted,
              call.promptTokens));
      Reply reply =
          new Reply(
              429,
              verdict.retryAfterNanos(),
              verdict.boundDimension(),
              answer.headers(),
              answer.body());
      at(now, () -> onReply.accept(reply));
    }
  }

  @Override
  public void succeed(SimCall call) {
    finish(call, Recording.Outcome.OK);
  }

  @Override
  public void fail(SimCall call) {
    finish(call, Recording.Outcome.FAILED);
  }

  @Override
  public void reject(SimCall call, RejectReason reason, long resetAtNanos) {
    if (!call.ended()) {
      call.rejectReason = reason;
      call.resetAtNanos = resetAtNanos;
    }
    finish(call, Recording.Outcome.FAILED);
  }

  @Override
  public void expire(SimCall call) {
    finish(call, Recording.Outcome.EXPIRED);
  }

  @Override
  public void defer(SimCall call, long sleepNanos) {
    freeSlot(call);
    if (call.ended()) {
      return;
    }
    call.deferrals++;
    long wake = plus(plus(now(), sleepNanos), TimeModel.timerLateness(timerRandom));
    at(plus(wake, TimeModel.DISPATCH_NANOS), () -> enqueue(call));
  }

  @Override
  public void retry(SimCall call) {
    freeSlot(call);
    if (!call.ended()) {
      dispatchLater(call);
    }
  }

  @Override
  public double jitter() {
    return jitterRandom.nextDouble();
  }

  // ---- workflows and slots ---------------------------------------------------------------------

  private void scheduleArrival(QueueState q, long from) {
    double gapSeconds = -Math.log(1 - q.arrivalRandom.nextDouble()) / q.tenant.openLoopRps();
    long next = plus(from, Workload.nanos(gapSeconds));
    long stop = q.tenant.stopS() == null ? Long.MAX_VALUE : Workload.nanos(q.tenant.stopS());
    if (next >= stop) {
      return;
    }
    at(
        next,
        () -> {
          submit(q, null);
          scheduleArrival(q, next);
        });
  }

  /**
   * Schedules row {@code i} of a trace tenant's arrivals, which on arrival submits its call with
   * the row's sizes and schedules the next row (one pending event per tenant, however long the
   * trace).
   */
  private void scheduleTraceArrival(QueueState q, int i) {
    TraceArrivals trace = q.tenant.trace();
    if (i >= trace.size()) {
      return;
    }
    at(
        Workload.nanos(trace.atS(i)),
        () -> {
          submit(q, null, trace.prompt(i), q.tenant.clampCompletion(trace.completion(i)));
          scheduleTraceArrival(q, i + 1);
        });
  }

  private void submit(QueueState q, Workflow workflow) {
    long prompt = q.tenant.promptTokens().sample(q.tokenRandom);
    long completion = q.tenant.clampCompletion(q.tenant.completionTokens().sample(q.tokenRandom));
    submit(q, workflow, prompt, completion);
  }

  private void submit(QueueState q, Workflow workflow, long prompt, long completion) {
    SimCall call =
        new SimCall(
            q.index, q.tenant, q.classIndex, callSequence++, now(), prompt, completion, workflow);
    calls.add(call);
    if (call.deadlineNanos != Long.MAX_VALUE) {
      at(call.deadlineNanos, () -> giveUp(call));
    }
    dispatchLater(call);
  }

  /**
   * The caller stops waiting for {@code call} at its deadline: the call is expired and its workflow
   * moves on. An activity still running for it ends at its next step (a reply, a wake-up on the
   * slot, a re-dispatch), and a dispatched activity that has not taken a slot never does — except a
   * call holding a gate booking (a durable timer fired a little late, past the deadline): it still
   * wakes and hands its place back ({@code GateConfiguration}), as a caller does.
   */
  private void giveUp(SimCall call) {
    if (!call.ended()) {
      end(call, Recording.Outcome.EXPIRED);
    }
  }

  private void dispatchLater(SimCall call) {
    at(plus(now(), TimeModel.DISPATCH_NANOS), () -> enqueue(call));
  }

  private void enqueue(SimCall call) {
    if (call.ended() && call.booking == null) {
      return;
    }
    dispatch.enqueue(call);
    pump();
  }

  /**
   * The activity of {@code call} ends with {@code outcome}, unless its caller already gave it up.
   */
  private void finish(SimCall call, Recording.Outcome outcome) {
    freeSlot(call);
    if (!call.ended()) {
      end(call, outcome);
    }
  }

  /** {@code call} ends with {@code outcome} now; its workflow moves on. */
  private void end(SimCall call, Recording.Outcome outcome) {
    call.finishedNanos = now();
    call.outcome = outcome;
    QueueState q = queues[call.queue];
    Workflow workflow = call.workflow;
    if (workflow == null) {
      return;
    }
    workflow.callsLeft--;
    if (call.resetAtNanos > now()) {
      // refused until a limit resets: the workflow sleeps until then on a durable timer
      at(call.resetAtNanos, () -> next(q, workflow));
    } else {
      next(q, workflow);
    }
  }

  /**
   * {@code workflow} submits its next call, or ends when it has none left or its tenant stopped.
   */
  private void next(QueueState q, Workflow workflow) {
    boolean stopped = q.tenant.stopS() != null && now() >= Workload.nanos(q.tenant.stopS());
    if (workflow.callsLeft > 0 && !stopped) {
      submit(q, workflow);
    } else {
      q.runningWorkflows--;
      q.stoppedEarly |= workflow.callsLeft > 0;
      checkFinished(q);
    }
  }

  /**
   * Records a closed-loop queue whose workflows have all run out of calls (which ends the
   * contention window); a queue that stopped at its {@code stop_s}, or an open-loop one, does not
   * count.
   */
  private void checkFinished(QueueState q) {
    if (!q.tenant.openLoop() && q.runningWorkflows == 0 && !q.stoppedEarly) {
      recorder.queueFinished(q.index, now());
    }
  }

  private void freeSlot(SimCall call) {
    if (!call.holdsSlot()) {
      throw new IllegalStateException(
          "call " + call.sequence + " ends an activity without holding a slot");
    }
    call.slotHeldNanos += now() - call.slotSinceNanos;
    call.slotSinceNanos = -1;
    freeSlots++;
    pump();
  }

  /**
   * Hands free slots to waiting activities. Re-entrant calls (an activity that ends at once frees
   * its slot from inside {@link ActivityBehaviour#start}) are absorbed by the running loop.
   */
  private void pump() {
    if (pumping) {
      return;
    }
    pumping = true;
    try {
      while (freeSlots > 0) {
        SimCall call = dispatch.poll(now());
        if (call == null) {
          break;
        }
        if (call.ended() && call.booking == null) {
          continue;
        }
        freeSlots--;
        call.slotSinceNanos = now();
        behaviour.start(call);
      }
    } finally {
      pumping = false;
    }
    if (freeSlots > 0) {
      long ready = dispatch.nextReadyNanos(now());
      if (ready != Long.MAX_VALUE && ready < wakeAt) {
        wakeAt = ready;
        at(
            ready,
            () -> {
              if (wakeAt == ready) {
                wakeAt = Long.MAX_VALUE;
              }
              pump();
            });
      }
    }
  }

  // ---- events ----------------------------------------------------------------------------------

  private void at(long time, Runnable action) {
    if (time < endNanos) {
      events.add(new Event(time, eventSequence++, action));
    }
  }

  private static long plus(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  private record Event(long time, long sequence, Runnable action) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Long.compare(time, o.time);
      return c != 0 ? c : Long.compare(sequence, o.sequence);
    }
  }

  /** One closed-loop workflow: runs its calls one after another. */
  static final class Workflow {
    final QueueState queue;
    long callsLeft;

    Workflow(QueueState queue, long calls) {
      this.queue = queue;
      this.callsLeft = calls;
    }
  }

  /** One tenant's progress. */
  static final class QueueState {
    final int index;
    final Workload.Tenant tenant;
    final int classIndex;
    final SplittableRandom tokenRandom;
    final SplittableRandom arrivalRandom;
    int runningWorkflows;

    /** A workflow ended at {@code stop_s} with calls left. */
    boolean stoppedEarly;

    QueueState(
        int index,
        Workload.Tenant tenant,
        int classIndex,
        SplittableRandom tokenRandom,
        SplittableRandom arrivalRandom) {
      this.index = index;
      this.tenant = tenant;
      this.classIndex = classIndex;
      this.tokenRandom = tokenRandom;
      this.arrivalRandom = arrivalRandom;
    }
  }
}
