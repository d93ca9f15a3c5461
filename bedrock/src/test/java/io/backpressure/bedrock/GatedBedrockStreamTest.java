package io.backpressure.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.ProviderResponse;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.feedback.ProviderSignal;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlockDeltaEvent;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamOutput;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamResponseHandler;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelRequest;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelResponse;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelWithResponseStreamRequest;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelWithResponseStreamResponseHandler;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.PayloadPart;
import software.amazon.awssdk.services.bedrockruntime.model.ServiceUnavailableException;
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;
import software.amazon.awssdk.services.bedrockruntime.model.TokenUsage;

/**
 * ConverseStream, InvokeModel and InvokeModelWithResponseStream through the gated AWS SDK clients,
 * against the mock provider's Bedrock dialect (its streams in AWS's event-stream framing).
 */
class GatedBedrockStreamTest {

  private static final String MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

  private final ManualClock clock = new ManualClock();
  private final List<ProviderResponse> answers = new CopyOnWriteArrayList<>();

  private RecordingGate gate() {
    return TestGates.recording("bedrock/us-east-1/claude-3-5-haiku", 100, 100_000, clock);
  }

  /** One HTTP client for every test: its event loop is started and stopped once. */
  private static EventLoopGroup loop;

  private static SdkAsyncHttpClient http;

  @BeforeAll
  static void startHttp() {
    loop = new NioEventLoopGroup(1);
    http =
        NettyNioAsyncHttpClient.builder()
            .eventLoopGroup(SdkEventLoopGroup.create(loop))
            // Bedrock speaks HTTP/2; the mock, HTTP/1.1.
            .protocol(Protocol.HTTP1_1)
            .build();
  }

  @AfterAll
  static void stopHttp() {
    http.close();
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private BedrockRuntimeAsyncClient async(RecordingGate gate, MockProvider provider) {
    return GatedBedrock.builder()
        .gate(gate)
        .ticker(clock)
        .feedback(answers::add)
        .buildAsync(
            BedrockRuntimeAsyncClient.builder()
                .httpClient(http)
                .region(Region.US_EAST_1)
                .credentialsProvider(TestBedrock.credentials())
                .endpointOverride(URI.create(provider.url())));
  }

  private static ConverseStreamRequest converse(String text) {
    return ConverseStreamRequest.builder()
        .modelId(MODEL)
        .messages(
            Message.builder()
                .role(ConversationRole.USER)
                .content(ContentBlock.fromText(text))
                .build())
        .inferenceConfig(config -> config.maxTokens(40))
        .build();
  }

  /** Claude's body on Bedrock: Anthropic's messages format with {@code anthropic_version}. */
  private static SdkBytes claudeBody(String text) {
    return SdkBytes.fromString(
        "{\"anthropic_version\":\"bedrock-2023-05-31\",\"max_tokens\":40,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\""
            + text
            + "\"}]}",
        StandardCharsets.UTF_8);
  }

  @Test
  void converseStreamIsReleasedWithItsMetadataUsage() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeAsyncClient bedrock = async(gate, provider)) {
      StringBuilder text = new StringBuilder();
      TokenUsage[] usage = new TokenUsage[1];

      bedrock
          .converseStream(
              converse("hello bedrock"),
              ConverseStreamResponseHandler.builder()
                  .subscriber(
                      ConverseStreamResponseHandler.Visitor.builder()
                          .onContentBlockDelta(delta -> text.append(delta.delta().text()))
                          .onMetadata(metadata -> usage[0] = metadata.usage())
                          .build())
                  .build())
          .get(10, TimeUnit.SECONDS);

      assertThat(text).hasSize(100);
      assertThat(gate.requests())
          .singleElement()
          .satisfies(
              r -> {
                // "hello bedrock": 13 characters, 4 tokens at 4 characters each.
                assertThat(r.cost()).isEqualTo(Cost.requests(1).tokens(4));
                assertThat(r.maxTokens()).isEqualTo(40L);
              });
      RequestRecord record = provider.records().get(0);
      assertThat(usage[0].totalTokens())
          .isEqualTo((int) (record.promptTokens() + record.completionTokens()));
      assertThat(gate.releasedWith())
          .containsExactly(Cost.requests(1).tokens(usage[0].totalTokens()));
      assertThat(answers).singleElement().satisfies(a -> assertThat(a.statusCode()).isEqualTo(200));
    }
  }

  /**
   * A ConverseStream that Bedrock cuts with a {@code serviceUnavailableException} message (the
   * mock's overloaded fault switched on after the first text): the SDK fails the call with {@code
   * ServiceUnavailableException}, the gate hears it as the overload a 503 of that type is, and the
   * call is released once, with what the stream proved.
   *
   * <p>Mutation tried: the tap ignoring exception messages (the gate hears only the 200).
   */
  @Test
  void anExceptionMessageInAConverseStreamIsHeardAsTheAnswerItStandsFor() throws Exception {
    RecordingGate gate = gate();
    // eight pieces of text, one every half second: room to switch the fault on
    try (MockProvider provider =
            MockProvider.start(MockAnswers.atOnce(25).latencyMs(4_000, 4_000).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeAsyncClient bedrock =
            GatedBedrock.builder()
                .gate(gate)
                .ticker(clock)
                .feedback(ProviderFeedback.TO_CALLS_GATE.andThen(answers::add))
                .buildAsync(
                    BedrockRuntimeAsyncClient.builder()
                        .httpClient(http)
                        .region(Region.US_EAST_1)
                        .credentialsProvider(TestBedrock.credentials())
                        .endpointOverride(URI.create(provider.url())))) {
      CompletableFuture<Void> call =
          bedrock.converseStream(
              converse("hello bedrock"),
              ConverseStreamResponseHandler.builder()
                  .subscriber(
                      ConverseStreamResponseHandler.Visitor.builder()
                          .onContentBlockDelta(
                              delta -> provider.setFaults(new Faults(false, 1, true)))
                          .build())
                  .build());

      assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(ServiceUnavailableException.class);
      awaitReleased(gate);
      TestGates.assertHeardMidStream(gate, 503, ProviderSignal.Meaning.OVERLOADED);
      assertThat(answers.get(1).header("x-amzn-ErrorType"))
          .isEqualTo("ServiceUnavailableException");
      assertThat(gate.releases()).hasSize(1);
      assertThat(gate.outstanding()).isZero();
      assertThat(gate.releases().get(0).actual().tokens()).isBetween(5.0, 28.0);
    }
  }

  @Test
  void aCancelledConverseStreamReleasesWhatItProved() throws Exception {
    RecordingGate gate = gate();
    // 40 completion tokens (the call's maxTokens) streamed in 8 pieces over 2 s: the caller
    // cancels after the first.
    try (MockProvider provider = MockProvider.start(MockAnswers.slowly(2_000, 200));
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeAsyncClient bedrock = async(gate, provider)) {
      StringBuilder text = new StringBuilder();
      CompletableFuture<Void> call =
          bedrock.converseStream(
              converse("hello bedrock"),
              ConverseStreamResponseHandler.builder()
                  .onEventStream(
                      events ->
                          events.subscribe(
                              new Subscriber<ConverseStreamOutput>() {
                                private Subscription subscription;

                                @Override
                                public void onSubscribe(Subscription s) {
                                  subscription = s;
                                  s.request(1);
                                }

                                @Override
                                public void onNext(ConverseStreamOutput event) {
                                  if (event instanceof ContentBlockDeltaEvent delta) {
                                    text.append(delta.delta().text());
                                    subscription.cancel();
                                  } else {
                                    subscription.request(1);
                                  }
                                }

                                @Override
                                public void onError(Throwable t) {}

                                @Override
                                public void onComplete() {}
                              }))
                  .build());

      awaitReleased(gate);
      call.handle((ok, failure) -> null).get(10, TimeUnit.SECONDS);

      // One piece of eight: 20 characters, 5 tokens; the prompt's estimate, 4.
      assertThat(text).hasSize(20);
      assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(4 + 5));
      assertThat(gate.outstanding()).isZero();
    }
  }

  @Test
  void aThrottledConverseStreamReachesTheCallerOnceAndTheFeedbackAsA429() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider =
            MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(1), 25));
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeAsyncClient bedrock = async(gate, provider)) {
      ConverseStreamResponseHandler ignore =
          ConverseStreamResponseHandler.builder()
              .subscriber(ConverseStreamResponseHandler.Visitor.builder().build())
              .build();
      bedrock.converseStream(converse("first"), ignore).get(10, TimeUnit.SECONDS);

      assertThatThrownBy(
              () -> bedrock.converseStream(converse("second"), ignore).get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(ThrottlingException.class);

      assertThat(provider.records()).as("the SDK's retries are off").hasSize(2);
      assertThat(gate.releases()).hasSize(2);
      assertThat(gate.releases().get(1).actual()).isEqualTo(Cost.requests(1).tokens(0));
      assertThat(answers).extracting(ProviderResponse::statusCode).containsExactly(200, 429);
    }
  }

  @Test
  void invokeModelIsReleasedWithTheTokenCountHeaders() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient bedrock =
            GatedBedrock.builder()
                .gate(gate)
                .ticker(clock)
                .feedback(answers::add)
                .build(
                    BedrockRuntimeClient.builder()
                        .region(Region.US_EAST_1)
                        .credentialsProvider(TestBedrock.credentials())
                        .endpointOverride(URI.create(provider.url())))) {

      InvokeModelResponse reply =
          bedrock.invokeModel(
              InvokeModelRequest.builder()
                  .modelId(MODEL)
                  .contentType("application/json")
                  .body(claudeBody("hello bedrock"))
                  .build());

      assertThat(reply.body().asUtf8String()).contains("\"output_tokens\":25");
      assertThat(gate.requests())
          .singleElement()
          .satisfies(
              r -> {
                // Every string of the body: "bedrock-2023-05-31", "user", "hello bedrock" is 35
                // characters, 9 tokens.
                assertThat(r.cost()).isEqualTo(Cost.requests(1).tokens(9));
                assertThat(r.maxTokens()).isEqualTo(40L);
              });
      TestGates.assertReleasedAsCounted(gate, provider);
    }
  }

  @Test
  void invokeModelWithResponseStreamIsReleasedWithItsInvocationMetrics() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeAsyncClient bedrock = async(gate, provider)) {
      List<String> chunks = new CopyOnWriteArrayList<>();

      bedrock
          .invokeModelWithResponseStream(
              InvokeModelWithResponseStreamRequest.builder()
                  .modelId(MODEL)
                  .contentType("application/json")
                  .body(claudeBody("hello bedrock"))
                  .build(),
              InvokeModelWithResponseStreamResponseHandler.builder()
                  .subscriber(
                      InvokeModelWithResponseStreamResponseHandler.Visitor.builder()
                          .onChunk((PayloadPart part) -> chunks.add(part.bytes().asUtf8String()))
                          .build())
                  .build())
          .get(10, TimeUnit.SECONDS);

      assertThat(chunks.get(0)).contains("\"type\":\"message_start\"");
      assertThat(chunks.get(chunks.size() - 1)).contains("amazon-bedrock-invocationMetrics");
      TestGates.assertReleasedAsCounted(gate, provider);
      assertThat(answers).singleElement().satisfies(a -> assertThat(a.statusCode()).isEqualTo(200));
    }
  }

  private static void awaitReleased(RecordingGate gate) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (gate.releases().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }
}
