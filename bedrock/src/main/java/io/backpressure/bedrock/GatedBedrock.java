package io.backpressure.bedrock;

import io.backpressure.client.GatedClientBuilder;
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
 * {@code ThrottlingException} up to three times on its own, each an unadmitted request.
 *
 * <p>The gate options are {@link GatedClientBuilder}'s: routes go by model id (or inference
 * profile), and the default cost model, requests and tokens, charges what Bedrock's tokens per
 * minute counts (input and output together). Not thread-safe; build once.
 */
public final class GatedBedrock extends GatedClientBuilder<GatedBedrock> {

  private GatedBedrock() {
    super(BedrockRuntime.INSTANCE);
  }

  public static GatedBedrock builder() {
    return new GatedBedrock();
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
        .addExecutionInterceptor(new GateInterceptor(clientGate()))
        .retryStrategy(AwsRetryStrategy.doNotRetry())
        .build();
  }

  @Override
  protected GatedBedrock self() {
    return this;
  }
}
