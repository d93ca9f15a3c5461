package io.backpressure.eval.sim;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Dimension;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.eval.workload.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code bp} and its ablations: the real {@link InMemoryGate}, on the simulator's virtual clock, in
 * front of every upstream call.
 *
 * <h2>The activity</h2>
 *
 * On taking a slot the activity asks the gate. <b>Admitted</b>: it sends the call; after a 200 it
 * releases the grant with the true usage (prompt + completion tokens) and succeeds. After a 429
 * (the gate was wrong) it releases with {@link #rejectedActual what the provider counted} and the
 * activity fails and is retried through the gate (a fresh admission after the re-dispatch cost),
 * never by a sleep on the slot. <b>Deferred</b>: the activity ends at once, freeing the slot, and
 * the workflow sleeps {@code retryAfter} on a durable timer, then dispatches the activity again,
 * which presents the booking. <b>Expired</b>: the call's turn would come after its deadline; the
 * call ends expired at once. <b>Rejected</b>: the call fails, with the reason and, for a calendar
 * window or a quota, the reset instant ({@link ActivityContext#reject}). A 500 from the provider is
 * released like a 200 (the provider counted the call) and the activity is retried through the gate;
 * so is the provider's per-day 429, released at zero cost (the provider counted nothing), and the
 * gate, told of the spent day, then refuses the retry until the day's end.
 *
 * <p>Feedback: after every answer, once the grant is released, the activity tells the gate what the
 * provider said ({@link Gate#feedback}): the answer's status, rate-limit headers and error body
 * ({@link SimUpstream} writes them as the mock provider does), read by {@link ProviderSignals} as
 * the Temporal integration reads a real answer, with what the provider counted for the call as its
 * usage. {@code bp} learns from it; {@code bp-static} runs with {@link FeedbackPolicy#DISABLED}, so
 * its caps stay as configured.
 *
 * <p>Deadlines: a call of a tenant with {@code deadline_s} must be <em>answered</em> by its
 * deadline, so it asks with {@code maxWait} = what is left of its budget less the provider's
 * expected latency ({@code submitted + deadline_s − now − p95}, at least 0, where {@code p95} is
 * the 95th percentile of the workload's latency model, {@link Workload.Upstream#p95LatencyMs}); a
 * turn that comes later could only be answered after the caller has given up. It also gives the
 * gate what is left of the deadline itself ({@code AdmissionRequest.deadline}), so that under an
 * adaptive concurrency limit the gate keeps back the latency it measures instead of the fixed p95
 * (it does not send a call whose deadline that latency exceeds). A call without a deadline asks
 * with its class's {@code max_wait_s} when the workload's {@code priorities} give one (the
 * request's default, standing in for the policy's per-class {@code max_wait}), else with no limit.
 *
 * <h2>The policy, derived from the workload (the documented bp choices)</h2>
 *
 * <ul>
 *   <li>Dimensions: {@code requests} at {@code requests_per_s} and, if capped, {@code tokens} at
 *       {@code tokens_per_s} — the operator's {@code gate.caps} where given, else the upstream's
 *       caps at t = 0 ({@code bp-no-drf}: requests only, tokens not metered).
 *   <li>Burst: one upstream period of cap per dimension ({@code C_d · P}, the gate's own default
 *       shape), and never less than the largest single-call debit the workload can produce (its
 *       largest prompt, plus in reservation mode its largest {@code max_tokens} or the default), so
 *       every call fits.
 *   <li>Safe window: the upstream period, so the global layer also keeps an exact sliding window of
 *       {@code C_d · P} and no provider window, however aligned, sees more than the cap from
 *       admissions (reconciled calls can still overshoot by what their estimates missed); given
 *       explicitly, whatever the policy's own default ({@code bp-no-safe-window}: none).
 *   <li>Classes and weights from {@code priorities} ({@code bp-no-priority}: all weights 1); tenant
 *       weights from the tenants; reservation and {@code default_max_tokens} from {@code gate}.
 *   <li>Cost estimate: 1 request and the prompt tokens (the completion is known only from the
 *       reply); the request carries the tenant's {@code max_tokens} (none: the gate's default),
 *       reserved in reservation mode. The estimate ablations ({@code bp-oracle}, {@code
 *       bp-mean-estimate}, {@code bp-reserve-tight}) change only this, as {@link TokenEstimate}
 *       describes; {@code bp-429-held} changes only what a 429 is released with.
 *   <li>Limits beyond the caps: {@code gate.concurrency}, and the calendar windows ({@code
 *       gate.per_day}, {@code gate.per_month}) in {@code gate.time_zone} with the quotas and price
 *       of {@code gate.quotas}, as the policy's own ({@code bp-no-concurrency}: no concurrency
 *       limit; {@code bp-no-limits}: no calendar windows or quotas). The gate's calendar is the
 *       workload's {@code start_at} advanced by the virtual clock ({@link
 *       ActivityContext#calendar}).
 *   <li>Feedback: the defaults of {@link FeedbackPolicy} with the provider's accounting period
 *       {@code upstream.period_s} ({@code bp-static}: {@link FeedbackPolicy#DISABLED}).
 * </ul>
 */
public final class GateConfiguration implements Configuration {

  /** Which gate. */
  public enum Variant {
    FULL("bp"),
    /**
     * The ablation without provider feedback: caps as configured, no learning ({@link
     * FeedbackPolicy#DISABLED}).
     */
    STATIC("bp-static"),
    NO_DRF("bp-no-drf"),
    NO_PRIORITY("bp-no-priority"),
    /** The ablation without the safe window: the bucket bound {@code C_d·T + B_d} alone. */
    NO_SAFE_WINDOW("bp-no-safe-window"),
    /** bp told each call's true tokens up front ({@link TokenEstimate#ORACLE}). */
    ORACLE("bp-oracle", TokenEstimate.ORACLE, false),
    /** bp told each tenant's mean call up front ({@link TokenEstimate#MEAN}): no cold start. */
    MEAN_ESTIMATE("bp-mean-estimate", TokenEstimate.MEAN, false),
    /**
     * bp releasing a rate-limited call with everything it debited, tokens too, as it does its
     * request: the window it hit is full, so the tokens stay counted until they leave the gate's
     * window (the documented release gives them back).
     */
    REJECTED_HELD("bp-429-held", TokenEstimate.PROMPT, true),
    /**
     * bp in reservation mode, reserving each tenant's largest completion ({@link
     * TokenEstimate#TIGHT_RESERVATION}).
     */
    TIGHT_RESERVATION("bp-reserve-tight", TokenEstimate.TIGHT_RESERVATION, false),
    /** bp without the workload's {@code gate.concurrency}: its caps and shares alone. */
    NO_CONCURRENCY("bp-no-concurrency"),
    /**
     * bp without the workload's calendar limits and quotas ({@code gate.per_day}, {@code
     * gate.per_month}, {@code gate.quotas}): what the gate does when only the provider counts per
     * day, and the baseline a quota is measured against.
     */
    NO_LIMITS("bp-no-limits"),
    /**
     * bp deciding with the fair-queuing rule ({@link InMemoryGate#createFairQueuing}): a cap layer,
     * an order layer and the defer protocol ({@code FairRule}); the real worker's gate, in memory
     * or on Redis ({@code RedisGateConfig.Builder.fairQueuing}), decides with it too.
     */
    FAIR_QUEUING("bp-fq");

    public final String label;

    /** What the activity tells the gate about a call's tokens. */
    public final TokenEstimate estimate;

    /**
     * Whether a rate-limited call is released with all it debited (else {@link #rejectedActual}).
     */
    final boolean holdsRejected;

    Variant(String label) {
      this(label, TokenEstimate.PROMPT, false);
    }

    Variant(String label, TokenEstimate estimate, boolean holdsRejected) {
      this.label = label;
      this.estimate = estimate;
      this.holdsRejected = holdsRejected;
    }

    /**
     * Whether only the simulator's activity models this variant (the real worker asks as bp does).
     */
    public boolean simulatedOnly() {
      return estimate != TokenEstimate.PROMPT || holdsRejected;
    }
  }

  private final Variant variant;
  private final String name;

  /** The rebuilt rule's mechanisms this configuration switches off (bp-fq's ablations). */
  private final Set<String> without;

  /** The operator's policy this configuration runs as given, or null to derive one per workload. */
  private final Policy given;

  GateConfiguration(Variant variant) {
    this.variant = variant;
    this.name = variant.label;
    this.given = null;
    this.without = Set.of();
  }

  private GateConfiguration(String name, Policy policy) {
    this.variant = Variant.FULL;
    this.name = name;
    this.given = policy;
    this.without = Set.of();
  }

  private GateConfiguration(String mechanism) {
    this.variant = Variant.FAIR_QUEUING;
    this.name = Configuration.FAIR_QUEUING_WITHOUT + mechanism;
    this.given = null;
    this.without = Set.of(mechanism);
  }

  /**
   * {@code bp-fq} with one mechanism of the rebuilt rule switched off ({@link
   * InMemoryGate#createFairQueuingWithout}), named {@code bp-fq-no-MECHANISM}: an ablation of the
   * simulator only.
   *
   * @throws IllegalArgumentException if the rule has no such mechanism
   */
  public static GateConfiguration fairQueuingWithout(String mechanism) {
    if (!InMemoryGate.fairQueuingMechanisms().contains(mechanism)) {
      throw new IllegalArgumentException(
          "unknown mechanism '"
              + mechanism
              + "' of bp-fq; allowed: "
              + String.join(", ", InMemoryGate.fairQueuingMechanisms()));
    }
    return new GateConfiguration(mechanism);
  }

  /**
   * bp run with an operator's policy exactly as given (the YAML {@code admin apply} takes) instead
   * of one derived from the workload: its caps, bursts, windows, class and tenant weights, feedback
   * and reservation. The gate meters the dimensions {@code requests} and {@code tokens} the policy
   * names; the provider is still the workload's {@code upstream}. Simulator only ({@code what-if}):
   * the real mode's workers derive their policy from the workload.
   *
   * @param name the configuration's name in reports
   */
  public static GateConfiguration withPolicy(String name, Policy policy) {
    return new GateConfiguration(name, policy);
  }

  @Override
  public String name() {
    return name;
  }

  public Variant variant() {
    return variant;
  }

  /**
   * Whether only the simulator runs this configuration: its variant is modelled by the simulator's
   * activity alone, or it switches mechanisms of the rebuilt rule off.
   */
  public boolean simulatedOnly() {
    return variant.simulatedOnly() || !without.isEmpty();
  }

  /** Whether {@code variant} meters tokens on {@code workload}. */
  public static boolean metersTokensFor(Workload workload, Variant variant) {
    return metersTokens(workload, variant);
  }

  /**
   * @throws IllegalArgumentException if the workload cannot be gated this way: bp-no-drf without a
   *     request cap, or a given policy without one of the workload's classes
   */
  @Override
  public void validate(Workload workload) {
    if (given == null) {
      policy(workload, variant);
      return;
    }
    for (Workload.PriorityWeight k : workload.priorities()) {
      if (!given.priorityNames().contains(k.name())) {
        throw new IllegalArgumentException(
            "policy "
                + name
                + " has no class '"
                + k.name()
                + "' of workload "
                + workload.name()
                + "; its classes: "
                + String.join(", ", given.priorityNames()));
      }
    }
  }

  @Override
  public ActivityBehaviour behaviour(Workload workload, ActivityContext context) {
    if (given != null) {
      List<String> dims = given.dimensionNames();
      return new Gated(
          InMemoryGate.create(given, context.clock(), context.calendar()),
          context,
          workload,
          dims.contains(Dimension.TOKENS),
          dims.contains(Dimension.REQUESTS),
          variant);
    }
    Policy policy = policy(workload, variant);
    Gate gate =
        variant == Variant.FAIR_QUEUING
            ? InMemoryGate.createFairQueuingWithout(
                policy, context.clock(), context.calendar(), without)
            : InMemoryGate.create(policy, context.clock(), context.calendar());
    return new Gated(
        gate,
        context,
        workload,
        metersTokens(workload, variant),
        workload.gate().configuredCaps(workload.upstream()).requestsPerS() != null,
        variant);
  }

  /**
   * The gate's policy for {@code workload} under {@code variant}.
   *
   * @throws IllegalArgumentException if the workload cannot be gated this way (bp-no-drf without a
   *     request cap)
   */
  public static Policy policy(Workload workload, Variant variant) {
    Workload.Upstream up = workload.upstream();
    Workload.Caps caps = workload.gate().configuredCaps(up);
    Policy.Builder builder = Policy.builder("sim/" + workload.name());
    if (caps.requestsPerS() != null) {
      builder.dimension(
          Dimension.REQUESTS, caps.requestsPerS(), Math.max(1, caps.requestsPerS() * up.periodS()));
    } else if (variant == Variant.NO_DRF) {
      throw new IllegalArgumentException(
          "bp-no-drf meters requests only, but workload " + workload.name() + " caps no requests");
    }
    if (metersTokens(workload, variant)) {
      builder.dimension(
          Dimension.TOKENS,
          caps.tokensPerS(),
          Math.max(
              largestTokenDebit(workload, variant.estimate), caps.tokensPerS() * up.periodS()));
    }
    for (Workload.PriorityWeight k : workload.priorities()) {
      builder.priority(k.name(), variant == Variant.NO_PRIORITY ? 1.0 : k.weight());
    }
    for (Workload.Tenant t : workload.tenants()) {
      builder.tenantWeight(t.name(), t.weight());
    }
    builder.reservation(variant.estimate.reservation(workload), workload.gate().defaultMaxTokens());
    Limits.Concurrency concurrency = workload.gate().concurrency();
    if (concurrency != null && variant != Variant.NO_CONCURRENCY) {
      Limits.Adaptive adaptive = concurrency.adaptive();
      if (adaptive != null) {
        builder.adaptiveConcurrency(
            adaptive.min(), adaptive.max(), adaptive.latencyTarget(), concurrency.leaseTtl());
      } else {
        builder.concurrency(concurrency.maxInFlight(), concurrency.leaseTtl());
      }
    }
    Limits limits = workload.gate().limits();
    if (variant != Variant.NO_LIMITS) {
      limits.calendar().forEach(c -> calendar(builder, c));
      builder.timeZone(limits.timeZone());
      if (limits.price() != null) {
        builder.price(limits.price().inputPerMillion(), limits.price().outputPerMillion());
      }
      limits.tenantQuotas().forEach(builder::tenantQuota);
      if (limits.defaultTenantQuota() != null) {
        builder.defaultTenantQuota(limits.defaultTenantQuota());
      }
      limits.classQuotas().forEach(builder::classQuota);
    }
    Duration period = Duration.ofNanos(Math.round(up.periodS() * 1e9));
    builder.safeWindow(variant == Variant.NO_SAFE_WINDOW ? null : period);
    builder.feedback(
        variant == Variant.STATIC
            ? FeedbackPolicy.DISABLED
            : FeedbackPolicy.DEFAULT.toBuilder().period(period).build());
    return builder.build();
  }

  private static void calendar(Policy.Builder builder, Limits.Calendar c) {
    if (c.period() == Limits.Period.DAY) {
      builder.perDay(c.dimension(), c.limit());
    } else {
      builder.perMonth(c.dimension(), c.limit());
    }
  }

  /** The largest token amount one admission can debit: the least the token burst may be. */
  static double largestTokenDebit(Workload workload, TokenEstimate estimate) {
    long largest = 1;
    for (Workload.Tenant t : workload.tenants()) {
      largest = Math.max(largest, estimate.largestDebit(workload, t));
    }
    return largest;
  }

  private static boolean metersTokens(Workload workload, Variant variant) {
    return workload.upstream().tokensPerS() != null && variant != Variant.NO_DRF;
  }

  /**
   * What a rejected (429) call is released with: one request, kept debited (the window it hit was
   * full, so giving it back would only re-admit into the same full window), and tokens only if the
   * provider counts rejected calls ({@code rejected_count}), in which case it counted all of them.
   */
  static Cost rejectedActual(
      SimCall call, boolean rejectedCount, boolean tokens, boolean requests) {
    return cost(requests, 1, tokens, rejectedCount ? call.totalTokens() : 0);
  }

  private static Cost cost(
      boolean requests, double requestAmount, boolean tokens, double tokenAmount) {
    Cost cost = requests ? Cost.requests(requestAmount) : Cost.none();
    return tokens ? cost.tokens(tokenAmount) : cost;
  }

  /** Whether {@code reply} is the provider's refusal by a cap per day ({@link SimUpstream}). */
  static boolean dayLimited(ActivityContext.Reply reply) {
    return reply.boundDimension() != null && reply.boundDimension().endsWith(SimUpstream.PER_DAY);
  }

  /**
   * How much longer the caller of {@code call} waits for its turn at {@code now}: what is left of
   * its deadline less the provider's p95 latency (the time the answer takes once sent), else its
   * class's {@code max_wait_s}, else null (no limit).
   */
  static Duration maxWait(Workload workload, SimCall call, long now) {
    if (call.deadlineNanos != Long.MAX_VALUE) {
      long answer = answerMarginNanos(workload);
      return Duration.ofNanos(Math.max(0, call.deadlineNanos - now - answer));
    }
    Double classWait = workload.priorities().get(call.classIndex).maxWaitS();
    return classWait == null ? null : Duration.ofNanos(Math.round(classWait * 1e9));
  }

  /**
   * How much longer the caller of {@code call} waits for its answer at {@code now}: what is left of
   * its deadline, at least 0; null when it has none.
   */
  static Duration deadline(SimCall call, long now) {
    if (call.deadlineNanos == Long.MAX_VALUE) {
      return null;
    }
    return Duration.ofNanos(Math.max(0, call.deadlineNanos - now));
  }

  /**
   * What a caller with a deadline keeps back from its budget for the provider's answer: the
   * workload's p95 service latency, in nanoseconds (the real mode passes the same figure).
   */
  public static long answerMarginNanos(Workload workload) {
    return Math.round(workload.upstream().p95LatencyMs() * 1e6);
  }

  /** The gated activity. */
  private static final class Gated implements ActivityBehaviour {

    /**
     * What the provider's answer says, read as a real answer is read, with what the provider
     * counted for the call ({@code countedTokens} tokens and its request) as the call's usage.
     */
    private ProviderSignal signal(ActivityContext.Reply reply, double countedTokens) {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      reply.headers().forEach((name, value) -> headers.put(name, List.of(value)));
      Instant receivedAt = Instant.EPOCH.plusNanos(context.now());
      return ProviderSignals.parse(reply.status(), headers, reply.body(), receivedAt)
          .withUsage(cost(requests, 1, tokens, countedTokens));
    }

    /**
     * A call its caller gave up woke with its booking, past the deadline (so it asked with no wait
     * left): the gate either expired it (its place is given back) or admitted it, and then the
     * unused grant is released at zero cost. Either way nothing is sent.
     */
    private void handBack(SimCall call, Admission admission) {
      if (admission instanceof Admission.Admitted admitted) {
        gate.release(admitted.grant(), cost(requests, 0, tokens, 0));
      }
      call.booking = null;
      context.expire(call);
    }

    private final Gate gate;
    private final ActivityContext context;
    private final Workload workload;
    private final boolean rejectedCount;
    private final boolean tokens;
    private final boolean requests;
    private final TokenEstimate estimate;
    private final boolean holdsRejected;

    Gated(
        Gate gate,
        ActivityContext context,
        Workload workload,
        boolean tokens,
        boolean requests,
        Variant variant) {
      this.gate = gate;
      this.context = context;
      this.workload = workload;
      this.rejectedCount = workload.upstream().rejectedCount();
      this.tokens = tokens;
      this.requests = requests;
      this.estimate = variant.estimate;
      this.holdsRejected = variant.holdsRejected;
    }

    @Override
    public void start(SimCall call) {
      AdmissionRequest request =
          new AdmissionRequest(
              call.tenant.name(),
              call.tenant.priority(),
              cost(
                  requests,
                  1,
                  tokens,
                  estimate.tokens(workload, call.tenant, call.promptTokens, call.totalTokens())),
              estimate.maxTokens(call.tenant, call.completionTokens),
              call.booking,
              maxWait(workload, call, context.now()),
              deadline(call, context.now()));
      Admission admission = gate.admit(request);
      if (call.ended()) {
        handBack(call, admission);
        return;
      }
      if (admission instanceof Admission.Admitted admitted) {
        call.booking = null;
        context.send(
            call,
            reply -> {
              if (reply.status() == 429 && dayLimited(reply)) {
                // the provider's cap per day refused it and counted nothing: all goes back, and
                // the gate hears that the day is spent
                gate.release(admitted.grant(), cost(requests, 0, tokens, 0));
                gate.feedback(admitted.grant(), signal(reply, 0).withUsage(Cost.none()));
                context.retry(call);
              } else if (reply.status() == 429) {
                gate.release(
                    admitted.grant(),
                    holdsRejected
                        ? admitted.grant().debited()
                        : rejectedActual(call, rejectedCount, tokens, requests));
                gate.feedback(
                    admitted.grant(), signal(reply, rejectedCount ? call.totalTokens() : 0));
                context.retry(call);
              } else {
                gate.release(admitted.grant(), cost(requests, 1, tokens, call.totalTokens()));
                gate.feedback(admitted.grant(), signal(reply, call.totalTokens()));
                if (reply.ok()) {
                  context.succeed(call);
                } else {
                  context.retry(call);
                }
              }
            });
      } else if (admission instanceof Admission.Deferred deferred) {
        call.booking = deferred.booking();
        context.defer(call, deferred.retryAfter().toNanos());
      } else if (admission instanceof Admission.Expired) {
        call.booking = null;
        context.expire(call);
      } else if (admission instanceof Admission.Rejected rejected) {
        context.reject(
            call,
            rejected.reason(),
            rejected.resetAt() == null
                ? -1
                : Duration.between(Instant.EPOCH, rejected.resetAt()).toNanos()
                    - context.calendar().epochNanos()
                    + context.now());
      }
    }
  }
}
