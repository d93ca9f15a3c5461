package io.backpressure.eval;

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
final class GatewayConfiguration implements Configuration {
  static final long WINDOW_NANOS = 60_000_000_000L;

  @Override
  public String name() {
    return "gateway";
  }

  @Override
  public ActivityBehaviour behaviour(Workload workload, ActivityContext context) {
    return new Proxy(workload, context);
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
      double weights = workload.tenants().stream().mapToDouble(Workload.Tenant::weight).sum();
      double seconds = WINDOW_NANOS / 1e9;
      requestSlice = new double[n];
      tokenSlice = new double[n];
      window = new long[n];
      requestsUsed = new double[n];
      tokensUsed = new double[n];
      Workload.Upstream up = workload.upstream();
      for (int i = 0; i < n; i++) {
        double share = workload.tenants().get(i).weight() / weights;
        requestSlice[i] = up.requestsPerS() == null ? Double.POSITIVE_INFINITY : up.requestsPerS() * seconds * share;
        tokenSlice[i] = up.tokensPerS() == null ? Double.POSITIVE_INFINITY : up.tokensPerS() * seconds * share;
      }
    }

    @Override
    public void start(SimCall call) {
      int t = call.queue;
      long now = context.now();
      long current = now / WINDOW_NANOS;
      if (current != window[t]) {
        window[t] = current;
        requestsUsed[t] = 0;
        tokensUsed[t] = 0;
      }
      if (requestsUsed[t] + 1 <= requestSlice[t] && tokensUsed[t] < tokenSlice[t]) {
        requestsUsed[t] += 1;
        SdkRetry.untilOk(context, call, () -> {
          chargeTokens(t, call.totalTokens());
          context.succeed(call);
        });
      } else {
        context.after((current + 1) * WINDOW_NANOS - now, () -> start(call));
      }
    }

    private void chargeTokens(int t, double tokens) {
      long current = context.now() / WINDOW_NANOS;
      if (current != window[t]) {
        window[t] = current;
        requestsUsed[t] = 0;
        tokensUsed[t] = 0;
      }
      tokensUsed[t] += tokens;
    }
  }
}
