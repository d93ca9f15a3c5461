package io.backpressure.bedrock;

import io.backpressure.client.Admitter;
import io.backpressure.client.CallerResolver;
import io.backpressure.client.ClientGate;
import io.backpressure.client.CostModel;
import io.backpressure.client.ModelRoutes;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.core.Gate;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClientBuilder;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClientBuilder;

/**
 * Gates the AWS SDK v2's Bedrock runtime clients: {@link #build} and {@link #buildAsync} finish a
 * {@code BedrockRuntimeClient} or {@code BedrockRuntimeAsyncClient} builder (region, credentials,
 * endpoint as you set them) with the gate's {@link GateInterceptor} and the SDK's retries off:
 * {@code converse}, {@code converseStream}, {@code invokeModel} and {@code
 * invokeModelWithResponseStream} are gated.
 *
 * <pre>{@code
 * BedrockRuntimeClient bedrock = GatedBedrock.builder()
 *     .gate(gate)                                 // the model's (or inference profile's) quota
 *     .feedback(ProviderFeedback.toGate(gate))    // ThrottlingException reaches the gate
 *     .build(BedrockRuntimeClient.builder().region(Region.US_EAST_1));
 * try (GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
 *   ConverseResponse reply = bedrock.converse(request);
 * }
 * }</pre>
 *
 * <p><b>Why an interceptor and not a wrapping client.</b> The SDK runs the {@code
 * ExecutionInterceptor}s of a client's override configuration around every operation of that
 * client, synchronous or asynchronous, streamed or not (every generated method goes through the
 * same client handler and its interceptor chain), so no call leaves a client built here without
 * being admitted. The interceptor sees the modelled request (the cost is read from fields, not from
 * signed bytes), admits before the request is signed (a long wait would otherwise age the SigV4
 * signature), and sees the modelled answer, its headers and, for the asynchronous streams, the raw
 * bytes of the event stream for the release. A wrapping {@code SdkHttpClient} sees only signed
 * bytes, once per attempt; a wrapping {@code BedrockRuntimeClient} misses every operation it does
 * not override, the ones the SDK adds later included.
 *
 * <p><b>The SDK's retries are off</b> ({@code AwsRetryStrategy.doNotRetry()}): the SDK retries a
 * {@code ThrottlingException} up to three times on its own, each an unadmitted request. Not
 * thread-safe; build once.
 */
public final class GatedBedrock {

  private final ClientGate.Builder gate = ClientGate.builder(BedrockRuntime.INSTANCE);

  private GatedBedrock() {}

  public static GatedBedrock builder() {
    return new GatedBedrock();
  }

  /** Every call goes to {@code gate}. */
  public GatedBedrock gate(Gate gate) {
    this.gate.gate(gate);
    return this;
  }

  /** Each call goes to the gate its model id (or inference profile) is routed to. */
  public GatedBedrock routes(ModelRoutes routes) {
    gate.routes(routes);
    return this;
  }

  /** {@link Admitter#direct()} by default. */
  public GatedBedrock admitter(Admitter admitter) {
    gate.admitter(admitter);
    return this;
  }

  /** Who a call is for; the thread's {@code GateContext} by default. */
  public GatedBedrock callerResolver(CallerResolver resolver) {
    gate.callerResolver(resolver);
    return this;
  }

  /** Where every answer's status, headers and refusal body go; nowhere by default. */
  public GatedBedrock feedback(ProviderFeedback feedback) {
    gate.feedback(feedback);
    return this;
  }

  /**
   * The dimensions calls are charged in; requests and tokens by default (Bedrock counts input and
   * output together in its tokens per minute).
   */
  public GatedBedrock costModel(CostModel costModel) {
    gate.costModel(costModel);
    return this;
  }

  /** The gated synchronous client; {@code builder}'s own override configuration is kept. */
  public BedrockRuntimeClient build(BedrockRuntimeClientBuilder builder) {
    return builder.overrideConfiguration(gated(builder.overrideConfiguration())).build();
  }

  /** The gated asynchronous client; {@code builder}'s own override configuration is kept. */
  public BedrockRuntimeAsyncClient buildAsync(BedrockRuntimeAsyncClientBuilder builder) {
    return builder.overrideConfiguration(gated(builder.overrideConfiguration())).build();
  }

  private ClientOverrideConfiguration gated(ClientOverrideConfiguration configuration) {
    return configuration.toBuilder()
        .addExecutionInterceptor(new GateInterceptor(gate.build()))
        .retryStrategy(AwsRetryStrategy.doNotRetry())
        .build();
  }
}
