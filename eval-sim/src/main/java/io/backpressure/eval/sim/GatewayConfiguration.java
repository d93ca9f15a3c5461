package io.backpressure.eval.sim;

import io.backpressure.eval.workload.Workload;

/**
 * {@code gateway}: a LiteLLM-style proxy with client-side limits (paper's Mode C). Each tenant owns
 * a static slice of the cap per 60 s fixed window (aligned to the run's start), proportional to its
 * weight {@code w_t} alone — the gateway knows nothing of priority classes: {@code requests_per_s ·
 * 60 · w_t / Σw} requests and, if tokens are capped, {@code tokens_per_s · 60 · w_t / Σw} tokens.
 * The slices sum to the cap without oversubscription.
 *
 * <p>Everything happens while the caller's activity holds its slot: a call whose tenant slice is
 * exhausted waits inside the proxy for the next window; an admitted call takes one request from the
 * slice (once per call, as the proxy's pre-call hook counts it) and is sent; upstream 429s are
 * retried inside the proxy with the same backoff as {@code naive}. Tokens are charged to the slice
 * after the reply with the usage the provider reports, and a call may start while the slice's token
 * count is still below its limit (the proxy cannot know a call's usage in advance).
 */
public final class GatewayConfiguration implements Configuration {
  /** The proxy's accounting window, in nanoseconds (the simulator's and the real run's). */
  private static final long WINDOW_NANOS = 60_000_000_000L;

  @Override
  public String name() {
    return "gateway";
  }

  @Override
  public ActivityBehaviour behaviour(Workload workload, ActivityContext context) {
    return new Proxy(workload, context);
  }

  /**
   * Per tenant, in workload order, the requests of its slice per window: {@code requests_per_s · 60
   * · w_t / Σw}, or {@code +∞} when requests are not capped. Shared by the simulator and the real
   * run.
   */
  public static double[] requestSlices(Workload workload) {
    return slices(workload, workload.upstream().requestsPerS());
  }

  /** As {@link #requestSlices} for tokens: {@code tokens_per_s · 60 · w_t / Σw}, or {@code +∞}. */
  public static double[] tokenSlices(Workload workload) {
    return slices(workload, workload.upstream().tokensPerS());
  }

  private static double[] slices(Workload workload, Double capPerS) {
    double weights = workload.tenants().stream().mapToDouble(Workload.Tenant::weight).sum();
    double seconds = WINDOW_NANOS / 1e9;
    double[] slices = new double[workload.tenants().size()];
    for (int i = 0; i < slices.length; i++) {
      double share = workload.tenants().get(i).weight() / weights;
      slices[i] = capPerS == null ? Double.POSITIVE_INFINITY : capPerS * seconds * share;
    }
    return slices;
  }

  /**
   * The proxy's accounting, the one model of both modes (the simulator's {@link Proxy} and the real
   * run's {@code GatewaySlices}): per tenant the requests and tokens used in the current 60 s
   * window, counted from the run's origin ({@code floorDiv}, so an instant before the origin
   * belongs to window −1). Times are nanoseconds since the run's origin. Not thread-safe.
   */
  public static final class Slices {
    private final double[] requestSlice;
    private final double[] tokenSlice;
    private final long[] window;
    private final double[] requestsUsed;
    private final double[] tokensUsed;

    /**
     * @param requestSlice per tenant, requests per window ({@code +∞} when requests are not capped)
     * @param tokenSlice per tenant, tokens per window ({@code +∞} when tokens are not capped)
     */
    public Slices(double[] requestSlice, double[] tokenSlice) {
      this.requestSlice = requestSlice.clone();
      this.tokenSlice = tokenSlice.clone();
      int n = requestSlice.length;
      this.window = new long[n];
      this.requestsUsed = new double[n];
      this.tokensUsed = new double[n];
    }

    /**
     * Takes one request from tenant {@code queue}'s slice if it has room at {@code now}: a request
     * left, and tokens still below the limit (a call's usage is charged only after its reply).
     *
     * @return whether the call may be sent; if not, it waits {@link #untilNextWindow}
     */
    public boolean tryTake(int queue, long now) {
      roll(queue, now);
      if (requestsUsed[queue] + 1 <= requestSlice[queue] && tokensUsed[queue] < tokenSlice[queue]) {
        requestsUsed[queue] += 1;
        return true;
      }
      return false;
    }

    /** Nanoseconds from {@code now} to the start of the next window. */
    public static long untilNextWindow(long now) {
      return (Math.floorDiv(now, WINDOW_NANOS) + 1) * WINDOW_NANOS - now;
    }

    /**
     * Charges {@code tokens} the provider reported at {@code now} to tenant {@code queue}'s slice.
     */
    public void charge(int queue, double tokens, long now) {
      roll(queue, now);
      tokensUsed[queue] += tokens;
    }

    /** Starts a fresh window for tenant {@code queue} if {@code now} is past its current one. */
    private void roll(int queue, long now) {
      long current = Math.floorDiv(now, WINDOW_NANOS);
      if (current != window[queue]) {
        window[queue] = current;
        requestsUsed[queue] = 0;
        tokensUsed[queue] = 0;
      }
    }
  }

  /** The simulated proxy: a call waits on its slot for its tenant's slice. */
  private static final class Proxy implements ActivityBehaviour {
    private final ActivityContext context;
    private final Slices slices;

    Proxy(Workload workload, ActivityContext context) {
      this.context = context;
      this.slices = new Slices(requestSlices(workload), tokenSlices(workload));
    }

    @Override
    public void start(SimCall call) {
      int t = call.queue;
      long now = context.now();
      if (slices.tryTake(t, now)) {
        SdkRetry.untilOk(
            context,
            call,
            () -> {
              slices.charge(t, call.totalTokens(), context.now());
              context.succeed(call);
            });
      } else {
        context.after(call, Slices.untilNextWindow(now), () -> start(call));
      }
    }
  }
}
