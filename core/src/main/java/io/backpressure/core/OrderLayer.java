package io.backpressure.core;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The order layer of {@link FairRule}: whose turn is it? Two levels of fair queuing over dominant
 * costs {@code σ = max_d c_d / r_d} (microseconds of the whole cap; the dominant cost of <i>
 * Multi-resource fair queueing for packet processing</i>, DRFQ): classes share the target by their
 * weights {@code ω_k}, tenants share their class by {@code w_t}. It knows nothing of buckets or
 * windows.
 *
 * <p><b>Tags are times.</b> Each level keeps a finish tag per class and per queue and moves it as a
 * virtual clock (<i>Virtual Clock</i>, Zhang; the reservation tags of <i>mClock</i>, Gulati,
 * Merchant and Varman): a call starts at {@code S = max(F, now)} and pays {@code F ← S + σ /
 * share}, where a class's share is its entitled part of the cap, {@code g_k = ω_k / Σ ω_j} over the
 * active classes, and a queue's is its weighted part of its class's rate, {@code e_q = u_k · w_t /
 * W_k} ({@code u_k} the rate the class is served at, at least {@code g_k}; {@code W_k} the weight
 * of its active queues). A call's turn has come once its start tag has: its queue has been served
 * no faster than its part since it became active. Because the tags are times, a deferred call
 * sleeps exactly until its turn, and the calls whose turn has come ask, all together, about what
 * the class is served at, so the firm slots the defer protocol gives them never pile up. {@code
 * max(F, now)} is the O(1) lift of an idle or returning queue: no credit for time it did not ask,
 * and no debt forgiven.
 *
 * <p><b>Active means asking.</b> A queue is active from its first attempt until it has been seen
 * neither asking, nor back from a deferral, nor releasing a call for the anticipation time {@code
 * A} (a deferred call counts as seen until its turn: it is waiting, not idle), as Kubernetes' API
 * Priority and Fairness counts a queue with a request executing as non-empty, and dmClock keeps a
 * client that returns within its anticipation time in place. Its finish tag outlives its activity
 * until the idle TTL, so leaving and coming back never clears a debt. The active queues are ordered
 * by when they were last seen ({@link SeenHeap}); a class is active while one of its queues is.
 *
 * <p>Every step is O(classes) plus O(log n) in the active queues; nothing scans them. The essay
 * {@code docs/admission-rule.md} gives the sources and the proof sketches. Not thread-safe.
 */
final class OrderLayer {
  /** One tenant's queue in one class. */
  static final class Queue extends SeenHeap.Member {
    final String tenant;
    final int priority;
    double weight;
    double finish = Double.NEGATIVE_INFINITY;
    long seen;
    long order;

    Queue(String tenant, int priority) {
      this.tenant = tenant;
      this.priority = priority;
    }
  }

  private final int classes;
  private final double[] omega;
  private final double[] classFinish;
  private final double[] weightSum;

  /** Per class, the weight of every queue it remembers (active or resting within the idle TTL). */
  private final double[] knownWeight;

  private final int[] activeQueues;
  private final Map<String, Queue>[] active;
  private final Map<String, Queue>[] resting;
  private final SeenHeap<Queue> bySeen = new SeenHeap<>(OrderLayer::seenOrder);
  private long anticipation;
  private long idleTtl;
  private long touches;
  private final boolean lift;
  private final boolean anticipating;
  private final boolean remembered;

  OrderLayer(int classes) {
    this(classes, FairRule.ALL);
  }

  /** A layer with the {@code mechanisms} of {@link FairRule.Mechanism} given only. */
  @SuppressWarnings({"unchecked", "rawtypes"}) // generic arrays are created raw
  OrderLayer(int classes, Set<FairRule.Mechanism> mechanisms) {
    this.lift = mechanisms.contains(FairRule.Mechanism.LIFT);
    this.anticipating = mechanisms.contains(FairRule.Mechanism.ANTICIPATION);
    this.remembered = mechanisms.contains(FairRule.Mechanism.REMEMBERED_WEIGHT);
    this.classes = classes;
    this.omega = new double[classes];
    this.classFinish = new double[classes];
    Arrays.fill(classFinish, Double.NEGATIVE_INFINITY);
    this.weightSum = new double[classes];
    this.knownWeight = new double[classes];
    this.activeQueues = new int[classes];
    this.active = new Map[classes];
    this.resting = new Map[classes];
    for (int k = 0; k < classes; k++) {
      active[k] = new HashMap<>();
      resting[k] = new LinkedHashMap<>();
    }
  }

  private static int seenOrder(Queue a, Queue b) {
    int bySeen = Long.compare(a.seen, b.seen);
    return bySeen != 0 ? bySeen : Long.compare(a.order, b.order);
  }

  void configure(double[] classWeights, long anticipationMicros, long idleTtlMicros) {
    System.arraycopy(classWeights, 0, omega, 0, classes);
    this.anticipation = anticipating ? anticipationMicros : 0;
    this.idleTtl = Math.max(idleTtlMicros, anticipationMicros);
  }

  /** Moves the queues not seen within {@code A} out of the active set; forgets the idle ones. */
  void expire(long now) {
    while (!bySeen.isEmpty() && bySeen.first().seen < now - anticipation) {
      Queue q = bySeen.first();
      bySeen.pollFirst();
      int k = q.priority;
      active[k].remove(q.tenant);
      activeQueues[k]--;
      weightSum[k] = activeQueues[k] == 0 ? 0 : weightSum[k] - q.weight;
      resting[k].put(q.tenant, q);
    }
    for (int k = 0; k < classes; k++) {
      for (Iterator<Queue> it = resting[k].values().iterator(); it.hasNext(); ) {
        Queue q = it.next();
        if (q.seen >= now - idleTtl) {
          break;
        }
        knownWeight[k] -= q.weight;
        it.remove();
      }
      if (active[k].isEmpty() && resting[k].isEmpty()) {
        knownWeight[k] = 0;
      }
    }
  }

  /** The queue of {@code tenant} in class {@code k}, active and seen until {@code until}. */
  Queue touch(long until, String tenant, int k, double weight) {
    Queue q = active[k].get(tenant);
    if (q == null) {
      q = resting[k].remove(tenant);
      if (q == null) {
        q = new Queue(tenant, k);
        q.weight = 0;
      }
      knownWeight[k] += weight - q.weight;
      q.weight = weight;
      weightSum[k] += weight;
      activeQueues[k]++;
      active[k].put(tenant, q);
      q.seen = until;
      q.order = ++touches;
      bySeen.add(q);
      return q;
    }
    if (q.weight != weight) {
      weightSum[k] += weight - q.weight;
      knownWeight[k] += weight - q.weight;
      q.weight = weight;
    }
    if (until > q.seen) {
      q.seen = until;
      q.order = ++touches;
      bySeen.reorder(q);
    }
    return q;
  }

  /** The queue of {@code tenant} in class {@code k} if the layer still holds it. */
  @Nullable Queue find(String tenant, int k) {
    Queue q = active[k].get(tenant);
    return q != null ? q : resting[k].get(tenant);
  }

  /** Whether class {@code k} has an active queue. */
  boolean classActive(int k) {
    return activeQueues[k] > 0;
  }

  /**
   * {@code g_k}: class {@code k}'s entitled share of the cap among the active classes, {@code ω_k
   * K_k / Σ_j ω_j K_j}: a queue's weight in the whole target is {@code ω_k · w_t} (the weighted
   * dominant-resource fair share of <i>Dominant Resource Fairness</i>, Ghodsi et al.), and a class
   * is entitled to the weight of the queues it remembers, {@code K_k}, since a queue stays in the
   * fair-share sums for the idle TTL after it last asked ({@link Policy#idleTtl()}): a class of
   * sparse tenants, each asking every few seconds, keeps the share of all of them.
   */
  double entitled(int k) {
    double mine = omega[k] * (remembered ? knownWeight[k] : weightSum[k]);
    double sum = mine;
    for (int j = 0; j < classes; j++) {
      if (j != k && activeQueues[j] > 0) {
        sum += omega[j] * (remembered ? knownWeight[j] : weightSum[j]);
      }
    }
    return sum > 0 ? mine / sum : 1;
  }

  /** {@code S_k} of a call of class {@code k} whose queue's turn came at {@code now}. */
  double classStart(int k, long now) {
    return lift || classFinish[k] == Double.NEGATIVE_INFINITY
        ? Math.max(classFinish[k], now)
        : classFinish[k];
  }

  /** {@code S_q} of a fresh call of queue {@code q} at {@code now}. */
  double queueStart(Queue q, long now) {
    return lift || q.finish == Double.NEGATIVE_INFINITY ? Math.max(q.finish, now) : q.finish;
  }

  /** Whether class {@code k}'s next call at {@code now} would be within its share. */
  boolean withinShare(int k, long now) {
    return classFinish[k] <= now;
  }

  /**
   * Pays a call's queue tag, its class served at {@code rate} (a fraction of the cap): {@code F_q ←
   * S_q + σ / e_q}.
   */
  void payQueue(Queue q, double queueStart, double sigma, double rate) {
    q.finish = queueStart + sigma / queueShare(q, rate);
  }

  /**
   * A call of queue {@code q} served ahead of its turn, from capacity nobody whose turn it was
   * asked for, is counted as if it had started now: borrowing idle capacity leaves no debt beyond
   * the call itself.
   */
  void forgive(Queue q, long now, double sigma, double rate) {
    q.finish = Math.min(q.finish, now + sigma / queueShare(q, rate));
  }

  /** Pays a call's class tag at entitled share {@code g}: {@code F_k ← S_k + σ / g}. */
  void payClass(int k, double classStart, double sigma, double g) {
    classFinish[k] = classStart + sigma / g;
  }

  /** Takes back a class payment that is still the class's last (its tag moved by nothing since). */
  void unpayClassIfLast(int k, double classStart, double sigma, double g) {
    if (classFinish[k] == classStart + sigma / g) {
      classFinish[k] = classStart;
    }
  }

  /** Takes back what an expired call paid on its queue's tag: it was never served. */
  void refundQueue(Queue q, double sigma, double rate) {
    q.finish -= sigma / queueShare(q, rate);
  }

  /** Takes back what an expired call paid on its class's tag at entitled share {@code g}. */
  void refundClass(int k, double sigma, double g) {
    classFinish[k] -= sigma / g;
  }

  /** {@code e_q = rate · w_t / W_k}: the queue's weighted part of its class's rate. */
  double queueShare(Queue q, double rate) {
    return rate * q.weight / Math.max(weightSum[q.priority], q.weight);
  }

  /**
   * Moves the tags of a released call of queue {@code q} by the difference {@code sigma} between
   * its true and paid dominant costs at entitled share {@code g} (the completion-time correction of
   * <i>Fairness in serving large language models</i>, VTC).
   */
  void correct(Queue q, double sigma, double g, double rate) {
    classFinish[q.priority] += sigma / g;
    q.finish += sigma / queueShare(q, rate);
  }

  int activeQueues(int k) {
    return activeQueues[k];
  }

  double weightSum(int k) {
    return weightSum[k];
  }

  /** Writes the layer's state under {@link FairRuleSchema}'s names. */
  void readState(Map<String, Double> out) {
    out.put("touches", (double) touches);
    for (int k = 0; k < classes; k++) {
      out.put(FairRuleSchema.key("classFinish", k), classFinish[k]);
      out.put(FairRuleSchema.key("weightSum", k), weightSum[k]);
      out.put(FairRuleSchema.key("activeQueues", k), (double) activeQueues[k]);
      out.put(FairRuleSchema.key("knownWeight", k), knownWeight[k]);
      out.put(FairRuleSchema.key("restingQueues", k), (double) resting[k].size());
      for (int pass = 0; pass < 2; pass++) {
        for (Queue q : (pass == 0 ? active[k] : resting[k]).values()) {
          out.put(FairRuleSchema.queueKey(k, q.tenant, "weight"), q.weight);
          out.put(FairRuleSchema.queueKey(k, q.tenant, "finish"), q.finish);
          out.put(FairRuleSchema.queueKey(k, q.tenant, "seen"), (double) q.seen);
          out.put(FairRuleSchema.queueKey(k, q.tenant, "order"), (double) q.order);
          out.put(FairRuleSchema.queueKey(k, q.tenant, "active"), pass == 0 ? 1.0 : 0.0);
        }
      }
    }
  }
}
