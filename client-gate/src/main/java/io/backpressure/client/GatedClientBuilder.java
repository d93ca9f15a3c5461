package io.backpressure.client;

import io.backpressure.core.Gate;
import io.backpressure.core.Ticker;
import java.time.Duration;

/**
 * The gate options that every gated SDK client's builder shares ({@code GatedOpenAI}, {@code
 * GatedAnthropic}, {@code GatedGemini}, {@code GatedBedrock}): which gate a call goes to, how a
 * refusal reaches the caller, who a call is for, where the provider's answers go, what a call is
 * charged and how long its callers wait for its answer. Each SDK's builder adds its client's own
 * options and builds the client around {@link #clientGate()}. Not thread-safe; build once.
 *
 * @param <B> the SDK's builder, which every option returns for chaining
 */
public abstract class GatedClientBuilder<B extends GatedClientBuilder<B>> {

  private final ClientGate.Builder gate;

  /** Options for the provider API that {@code dialect} describes. */
  protected GatedClientBuilder(Dialect dialect) {
    this.gate = ClientGate.builder(dialect);
  }

  /** Every call goes to {@code gate}. */
  public final B gate(Gate gate) {
    this.gate.gate(gate);
    return self();
  }

  /** Each call goes to the gate its model (or model id, or deployment) is routed to. */
  public final B routes(ModelRoutes routes) {
    gate.routes(routes);
    return self();
  }

  /**
   * {@link Admitter#direct()} by default; {@code ActivityAdmitter.create()} inside Temporal
   * activities.
   */
  public final B admitter(Admitter admitter) {
    gate.admitter(admitter);
    return self();
  }

  /** Who a call is for; the thread's {@link GateContext} by default. */
  public final B callerResolver(CallerResolver resolver) {
    gate.callerResolver(resolver);
    return self();
  }

  /**
   * Where every answer's status, rate-limit headers and refusal body go; by default {@link
   * ProviderFeedback#TO_CALLS_GATE}, the gate that admitted the call ({@link ProviderFeedback#NONE}
   * turns it off).
   */
  public final B feedback(ProviderFeedback feedback) {
    gate.feedback(feedback);
    return self();
  }

  /**
   * The dimensions calls are charged in; requests and tokens by default. {@link
   * CostModel#SEPARATE_INPUT_OUTPUT} charges separate input and output token limits (Anthropic's),
   * {@code CostModel.of("requests", "input_tokens")} the input alone (the Gemini API's).
   */
  public final B costModel(CostModel costModel) {
    gate.costModel(costModel);
    return self();
  }

  /**
   * The time a call's send bound ({@link Gate#sendWithin()}) is measured in: how long after its
   * admission the call reached the client's last hook before it is sent ({@link
   * ClientGate#inTime}). The system's by default; a test that moves its gate's clock by hand passes
   * the same clock here.
   */
  public final B ticker(Ticker ticker) {
    gate.ticker(ticker);
    return self();
  }

  /**
   * The deadline for the answer of every call of the client, counted from the moment the call
   * reaches the gate ({@link ClientGate.Builder#deadline}): set it to the time the client's callers
   * wait for an answer. The SDK's request timeout needs no setting here: the gated clients hand it
   * to the gate themselves. A caller's own deadline ({@link GateContext#withDeadline}, in its
   * context or its request's headers) or the SDK's timeout, when shorter, wins. Under an adaptive
   * concurrency limit a call whose deadline does not cover the latency the gate measured is not
   * sent but ends with {@link ExpiredException}. None by default.
   *
   * @param deadline in (0, 365 days]
   */
  public final B deadline(Duration deadline) {
    gate.deadline(deadline);
    return self();
  }

  /**
   * A new gate with the options set so far, for the SDK's gated transport.
   *
   * @throws NullPointerException when neither a gate nor routes were set
   */
  protected final ClientGate clientGate() {
    return gate.build();
  }

  /** This builder, as the SDK's builder type. */
  protected abstract B self();
}
