package io.backpressure.bedrock;

import io.backpressure.client.ClientGate;
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
 * bytes, once per attempt; a wrapping {@code BedrockRuntimeClient} written by hand misses every
 * operation it does not override, the ones the SDK adds later included.
 *
 * <p><b>A 429 does not reach the caller.</b> The SDK's retries are off ({@code
 * AwsRetryStrategy.doNotRetry()}): the SDK retries a {@code ThrottlingException} up to three times
 * on its own, each an unadmitted request that the gate does not hear of. Instead, the clients built
 * here are proxies of the SDK's client interface: when the provider refuses a gated call with a 429
 * ({@code ThrottlingException}) or a stop (a daily quota spent), the interceptor hands the refusal
 * to the feedback and releases the grant, and the proxy asks the gate again ({@link
 * ClientGate#resends}, {@link ClientGate#again}). The gate, told, decides the wait: the call is
 * sent again once admitted, and when the gate defers it past what the admitter waits for, or
 * refuses it until a stop's reset, the caller gets the admitter's exception ({@code
 * DeferredException}, {@code ExpiredException}, {@code RejectedException}), not the provider's
 * refusal. The proxy passes every method through and only sends again what the interceptor
 * admitted; the interceptor cannot send a call again itself, and the SDK's retry strategy, which
 * could, sees neither the grant nor the gate's answer: it would send again after a backoff of its
 * own, without asking the gate. A stream is sent again only on a refusal before its first event,
 * which is where Bedrock sends a 429. With a feedback that does not tell the gate ({@link
 * io.backpressure.client.ProviderFeedback#NONE}), the refusal reaches the caller as the SDK's
 * exception.
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

  /**
   * The gated synchronous client; {@code builder}'s own override configuration is kept. A call the
   * provider refuses with a 429 asks the gate again on the calling thread, so {@code
   * Admitter.waiting(maxWait)} waits there for its turn.
   */
  public BedrockRuntimeClient build(BedrockRuntimeClientBuilder builder) {
    ClientGate gate = clientGate();
    return Resending.proxy(
        BedrockRuntimeClient.class,
        builder.overrideConfiguration(gated(builder.overrideConfiguration(), gate)).build(),
        gate);
  }

  /**
   * The gated asynchronous client; {@code builder}'s own override configuration is kept. A call the
   * provider refuses with a 429 asks the gate again on the thread that completes its answer: keep
   * the default {@code Admitter.direct()}, whose deferral fails the call's future at once.
   */
  public BedrockRuntimeAsyncClient buildAsync(BedrockRuntimeAsyncClientBuilder builder) {
    ClientGate gate = clientGate();
    return Resending.proxy(
        BedrockRuntimeAsyncClient.class,
        builder.overrideConfiguration(gated(builder.overrideConfiguration(), gate)).build(),
        gate);
  }

  private static ClientOverrideConfiguration gated(
      ClientOverrideConfiguration configuration, ClientGate gate) {
    return configuration.toBuilder()
        .addExecutionInterceptor(new GateInterceptor(gate, configuration))
        .retryStrategy(AwsRetryStrategy.doNotRetry())
        .build();
  }

  @Override
  protected GatedBedrock self() {
    return this;
  }
}
