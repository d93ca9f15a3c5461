package io.backpressure.eval.sim;

import io.backpressure.eval.workload.Workload;

/**
 * {@code gateway}: a LiteLLM-style proxy with client-side limits (paper's Mode C). Each tenant owns
 * a static slice of the cap per 60 s fixed window (aligned to the run's start), proportional to its
 * weight {@code w_t} alone — the gateway knows nothing of priority classes: {@code requests_per_s ·
 * 60 · w_t / Σw} requests and, if tokens are capped, {@code tokens_per_s · 60 · w_t / Σw} tokens. The
 * slices sum to the cap without oversubscription.
 *
 * <p>Everything happens while the caller's activity holds its slot: a call whose tenant slice is
 * exhausted waits inside the proxy for the next window; an admitted call takes one request from the
 * slice (once per call, as the proxy's pre-call hook counts it) and is sent; upstream 429s are
 * retried inside the proxy with the same backoff as {@code naive}. Tokens are charged to the slice
 * after the reply with the usage the provider reports, and a call may start while the slice's
 * token count is still below its limit (the proxy cannot know a call's usage in advance).
 */
public final class GatewayConfiguration implements Configuration {
  /** The proxy's accounting window, in nanoseconds (the simulator's and the real run's). */
  public static final long WINDOW_NANOS = 60_000_000_000L;

  @Override
  public String name() {
    return "gateway";
  }

  @Override
  public ActivityBehaviour behaviour(Workload workload, ActivityContext context) {
    return new Proxy(workload, context);
  }

  /**
   * Per tenant, in workload order, the requests of its slice per window: {@code requests_per_s · 60 ·
   * w_t / Σw}, or {@code +∞} when requests are not capped. Shared by the simulator and the real run.
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

  /** The proxy's per-run state: one slice per tenant. */
  private static final class Proxy implements ActivityBehaviour {
    private final ActivityContext context;
    private final double[] requestSlice;
    private final double[] tokenSlice;
    private final long[] window;
    private final double[] requestsUsed;
    private final double[] tokensUsed;

    Proxy(Workload workload, ActivityContext context) {
      this.context = context;
      int n = workload.tenants().size();
      requestSlice = requestSlices(workload);
      tokenSlice = tokenSlices(workload);
      window = new long[n];
      requestsUsed = new double[n];
      tokensUsed = new double[n];
    }

    @Override
    public void start(SimCall call) {
      int t = call.queue;
      long now = context.now();
      long current = roll(t, now);
      if (requestsUsed[t] + 1 <= requestSlice[t] && tokensUsed[t] < tokenSlice[t]) {
        requestsUsed[t] += 1;
        SdkRetry.untilOk(context, call, () -> {
          chargeTokens(t, call.totalTokens());
          context.succeed(call);
        });
      } else {
        context.after(call, (current + 1) * WINDOW_NANOS - now, () -> start(call));
      }
    }

    private void chargeTokens(int t, double tokens) {
      roll(t, context.now());
      tokensUsed[t] += tokens;
    }

    /** Starts a fresh window for tenant {@code t} if {@code now} is past its current one; returns the window. */
    private long roll(int t, long now) {
      long current = now / WINDOW_NANOS;
      if (current != window[t]) {
        window[t] = current;
        requestsUsed[t] = 0;
        tokensUsed[t] = 0;
      }
      return current;
    }
  }
}
