package io.backpressure.langchain4j;

import io.backpressure.client.GateContext;
import io.backpressure.client.GatedCall;
import io.backpressure.client.TokenEstimator;
import io.backpressure.core.Gate;
import io.backpressure.core.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * The options {@link GatedChatModel.Builder} and {@link GatedStreamingChatModel.Builder} share: the
 * gate, how prompt tokens are estimated, the context of calls that carry none, how long a deferred
 * call may wait on the calling thread, the bound on a server-timed wait inside a Temporal activity,
 * and whether the provider's answers go to the gate. Not thread-safe.
 *
 * @param <B> the concrete builder, returned by every option for chaining
 */
abstract class GatedModelBuilder<B extends GatedModelBuilder<B>> {
  private final Gate gate;
  private TokenEstimator estimator = TokenEstimator.charsPerToken();
  private GateContext defaultContext;
  private Duration activityMaxWait = Duration.ofMinutes(10);
  private Duration maxWait;
  private Ticker ticker = Ticker.system();
  private boolean providerFeedback = true;

  GatedModelBuilder(Gate gate) {
    this.gate = Objects.requireNonNull(gate, "gate");
  }

  /** How prompt tokens are estimated before the call (default: four characters per token). */
  public B estimator(TokenEstimator estimator) {
    this.estimator = Objects.requireNonNull(estimator, "estimator");
    return self();
  }

  /** The context of calls that carry none (default: none; such calls are rejected). */
  public B defaultContext(GateContext context) {
    this.defaultContext = Objects.requireNonNull(context, "context");
    return self();
  }

  /** Inside a Temporal activity, the bound on a server-timed wait (default 10 min). */
  public B activityMaxWait(Duration maxWait) {
    this.activityMaxWait = Objects.requireNonNull(maxWait, "maxWait");
    return self();
  }

  /**
   * Outside Temporal, a deferred call waits for its turn on the calling thread, keeping its place
   * in line, for at most {@code maxWait} (in (0, 1 h]); a call whose turn would come later is
   * refused at once with {@code ExpiredException}. A provider 429 ({@code RateLimitException})
   * becomes such a wait too. By default a deferral throws {@code DeferredException} at once.
   */
  public B maxWait(Duration maxWait) {
    GatedCall.builder(gate).maxWait(maxWait); // checks the range now, naming it
    this.maxWait = maxWait;
    return self();
  }

  /**
   * The time a call's send bound is measured in ({@link GatedCall.Builder#ticker}); the system's by
   * default. A test that moves its gate's clock by hand passes the same clock here.
   */
  public B ticker(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    return self();
  }

  /**
   * Whether each answer's status and rate-limit headers, heard by the model's HTTP client ({@link
   * SendCheckingHttpClientBuilder}), go to the gate ({@link GatedCall#answered}); on by default.
   * Off, the gate hears only the 429s the model throws, each taken as a one-second hold.
   */
  public B providerFeedback(boolean on) {
    this.providerFeedback = on;
    return self();
  }

  abstract B self();

  /** The admit, call, release step around the gate. */
  GatedCall gatedCall() {
    GatedCall.Builder gated =
        GatedCall.builder(gate)
            .activityMaxWait(activityMaxWait)
            .ticker(ticker)
            .providerFeedback(providerFeedback);
    if (maxWait != null) {
      gated.maxWait(maxWait);
    }
    return gated.build();
  }

  /** How each call's context and estimate are read. */
  ChatCalls calls() {
    return new ChatCalls(estimator, defaultContext);
  }
}
