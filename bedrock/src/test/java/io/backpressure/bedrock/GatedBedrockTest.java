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
import io.backpressure.core.feedback.ProviderSignals;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.Faults;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.InternalServerException;
import software.amazon.awssdk.services.bedrockruntime.model.InvokeModelRequest;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.ServiceUnavailableException;
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;
import software.amazon.awssdk.services.bedrockruntime.model.ValidationException;

/** The AWS SDK v2's Bedrock runtime clients, gated, against the mock provider's Bedrock dialect. */
class GatedBedrockTest {

  private static final String MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

  private final ManualClock clock = new ManualClock();
  private final List<ProviderResponse> answers = new CopyOnWriteArrayList<>();

  private RecordingGate gate() {
    return TestGates.recording("bedrock/us-east-1/claude-3-5-haiku", 100, 100_000, clock);
  }

  private GatedBedrock gated(RecordingGate gate) {
    return GatedBedrock.builder().gate(gate).ticker(clock).feedback(answers::add);
  }

  /** The official client on the mock, gated by {@code gated}. */
  private static BedrockRuntimeClient sync(GatedBedrock gated, MockProvider provider) {
    return gated.build(
        BedrockRuntimeClient.builder()
            .region(Region.US_EAST_1)
            .credentialsProvider(TestBedrock.credentials())
            .endpointOverride(URI.create(provider.url())));
  }

  private static ConverseRequest request(String text) {
    return ConverseRequest.builder()
        .modelId(MODEL)
        .messages(
            Message.builder()
                .role(ConversationRole.USER)
                .content(ContentBlock.fromText(text))
                .build())
        .inferenceConfig(config -> config.maxTokens(40))
        .build();
  }

  @Test
  void converseIsAdmittedBeforeItIsSentAndReleasedWithItsUsage() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient bedrock = sync(gated(gate), provider)) {

      ConverseResponse reply = bedrock.converse(request("hello bedrock"));

      assertThat(reply.output().message().content().get(0).text()).hasSize(100);
      assertThat(gate.requests())
          .singleElement()
          .satisfies(
              r -> {
                // "hello bedrock": 13 characters, 4 tokens at 4 characters each.
                assertThat(r.cost()).isEqualTo(Cost.requests(1).tokens(4));
                assertThat(r.maxTokens()).isEqualTo(40L);
              });
      RequestRecord record = provider.records().get(0);
      assertThat(reply.usage().totalTokens())
          .isEqualTo((int) (record.promptTokens() + record.completionTokens()));
      assertThat(gate.releasedWith())
          .containsExactly(Cost.requests(1).tokens(reply.usage().totalTokens()));
      assertThat(answers).singleElement().satisfies(a -> assertThat(a.statusCode()).isEqualTo(200));
    }
  }

  @Test
  void aThrottlingExceptionReachesTheCallerOnceAndTheFeedbackAsA429() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider =
            MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(1), 25));
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeAsyncClient bedrock =
            gated(gate)
                .buildAsync(
                    BedrockRuntimeAsyncClient.builder()
                        // Bedrock speaks HTTP/2; the mock, HTTP/1.1.
                        .httpClientBuilder(
                            NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1))
                        .region(Region.US_EAST_1)
                        .credentialsProvider(TestBedrock.credentials())
                        .endpointOverride(URI.create(provider.url())))) {
      bedrock.converse(request("first")).join();

      assertThatThrownBy(() -> bedrock.converse(request("second")).join())
          .hasCauseInstanceOf(ThrottlingException.class);

      assertThat(provider.records()).as("the SDK's retries are off").hasSize(2);
      assertThat(gate.releases()).hasSize(2);
      ProviderResponse refused = answers.get(1);
      assertThat(refused.statusCode()).isEqualTo(429);
      ProviderSignal signal =
          ProviderSignals.parse(429, refused.headers(), refused.body(), Instant.now());
      assertThat(signal.meaning()).isEqualTo(ProviderSignal.Meaning.SLOW_DOWN);
      assertThat(signal.exhausted()).containsExactly("requests");
      assertThat(signal.retryAfter()).isNull();
    }
  }

  /**
   * A call larger than the model's token quota outright is Bedrock's 400 {@code
   * ValidationException} (retrying can never help), not a throttle: the gate hears it as not a
   * capacity signal and the effective caps are left alone.
   */
  @Test
  void aCallThatCanNeverFitIsAValidationExceptionNotACapacitySignal() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider =
            MockProvider.start(
                MockAnswers.atOnce(25)
                    .tokens(LimitSpec.of(WindowModel.FIXED, 20, Duration.ofMinutes(1)))
                    .build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient bedrock =
            sync(
                GatedBedrock.builder()
                    .gate(gate)
                    .ticker(clock)
                    .feedback(ProviderFeedback.TO_CALLS_GATE.andThen(answers::add)),
                provider)) {
      // 4 input tokens plus 40 reserved for the output: more than the 20 a minute allows.
      assertThatThrownBy(() -> bedrock.converse(request("hello bedrock")))
          .isInstanceOfSatisfying(
              ValidationException.class, e -> assertError(e, 400, "ValidationException"));

      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(400);
      assertThat(gate.signals())
          .extracting(ProviderSignal::meaning)
          .containsExactly(ProviderSignal.Meaning.NOT_CAPACITY);
      assertThat(gate.releases()).hasSize(1);
      assertThat(gate.outstanding()).isZero();
    }
  }

  /**
   * Every Bedrock error the mock sends carries its type in {@code x-amzn-ErrorType}, from which the
   * AWS SDK picks the exception class and its error code: a bad request is a {@code
   * ValidationException}, a failed provider an {@code InternalServerException}, an overloaded one a
   * {@code ServiceUnavailableException}. The gate hears each as the signal table says and every
   * call is released.
   *
   * <p>Mutation tried: the mock's errors without the header (the SDK throws its base {@code
   * BedrockRuntimeException} with no error code, and the 503 is heard as a provider error).
   */
  @Test
  void eachErrorReachesTheCallerAsItsAwsExceptionAndTheGateAsItsMeaning() throws Exception {
    RecordingGate gate = gate();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient bedrock =
            sync(
                GatedBedrock.builder()
                    .gate(gate)
                    .ticker(clock)
                    .feedback(ProviderFeedback.TO_CALLS_GATE.andThen(answers::add)),
                provider)) {
      InvokeModelRequest titan =
          InvokeModelRequest.builder()
              .modelId("amazon.titan-text-express-v1")
              .body(SdkBytes.fromUtf8String("{\"inputText\":\"hello\"}"))
              .build();
      assertThatThrownBy(() -> bedrock.invokeModel(titan))
          .isInstanceOfSatisfying(
              ValidationException.class, e -> assertError(e, 400, "ValidationException"));
      provider.setFaults(new Faults(true, 1));
      assertThatThrownBy(() -> bedrock.converse(request("hello")))
          .isInstanceOfSatisfying(
              InternalServerException.class, e -> assertError(e, 500, "InternalServerException"));
      provider.setFaults(new Faults(false, 1, true));
      assertThatThrownBy(() -> bedrock.converse(request("hello")))
          .isInstanceOfSatisfying(
              ServiceUnavailableException.class,
              e -> assertError(e, 503, "ServiceUnavailableException"));

      assertThat(provider.records())
          .as("nothing resent")
          .extracting(RequestRecord::status)
          .containsExactly(400, 500, 503);
      assertThat(gate.signals())
          .extracting(ProviderSignal::meaning)
          .containsExactly(
              ProviderSignal.Meaning.NOT_CAPACITY,
              ProviderSignal.Meaning.PROVIDER_ERROR,
              ProviderSignal.Meaning.OVERLOADED);
      assertThat(gate.releases()).hasSize(3);
      assertThat(gate.outstanding()).isZero();
    }
  }

  private static void assertError(AwsServiceException e, int status, String code) {
    assertThat(e.statusCode()).isEqualTo(status);
    assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
    assertThat(e.awsErrorDetails().errorMessage()).isNotBlank();
  }
}
