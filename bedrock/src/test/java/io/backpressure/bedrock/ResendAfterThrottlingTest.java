package io.backpressure.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.Admitter;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import io.backpressure.core.ManualClock;
import io.backpressure.core.RejectReason;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.Caps;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeAsyncClient;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlockDeltaEvent;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseStreamResponseHandler;
import software.amazon.awssdk.services.bedrockruntime.model.Message;
import software.amazon.awssdk.services.bedrockruntime.model.ThrottlingException;

/**
 * A call the provider refuses with a {@code ThrottlingException} (HTTP 429) does not reach the
 * caller through a gated Bedrock client: the gate hears the 429, is asked again, and its answer
 * decides what follows. The provider allows one request a minute, so the second call meets a 429;
 * the gate's deferral is waited out in virtual time ({@link VirtualWait}), during which the
 * provider's minute passes (its cap is lifted), so the call sent again is answered. With the direct
 * admitter the caller meets the gate's deferral instead of the provider's refusal.
 */
class ResendAfterThrottlingTest {

  private static final String MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate =
      TestGates.recording("bedrock/us-east-1/claude-3-5-haiku", 100, 100_000, clock);

  private static SdkAsyncHttpClient http;

  @BeforeAll
  static void startHttp() {
    // Bedrock speaks HTTP/2; the mock, HTTP/1.1.
    http = NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP1_1).build();
  }

  @AfterAll
  static void stopHttp() {
    http.close();
  }

  /**
   * The direct admitter with its deferrals waited out on the test's clock: each wait lets the
   * provider's window pass first ({@code onWait}).
   */
  private final class VirtualWait implements Admitter {
    private final Runnable onWait;
    private final List<Duration> waits = new CopyOnWriteArrayList<>();

    VirtualWait(Runnable onWait) {
      this.onWait = onWait;
    }

    @Override
    public Grant admit(Gate gate, AdmissionRequest request) {
      AdmissionRequest attempt = request;
      while (true) {
        try {
          return Admitter.direct().admit(gate, attempt);
        } catch (DeferredException deferred) {
          waits.add(deferred.retryAfter());
          onWait.run();
          clock.advance(deferred.retryAfter());
          attempt = attempt.withBooking(deferred.booking());
        }
      }
    }

    @Override
    public void release(Gate gate, Grant grant, Cost actual) {
      Admitter.direct().release(gate, grant, actual);
    }

    @Override
    public RuntimeException refused(RejectReason reason, @Nullable String message) {
      return Admitter.direct().refused(reason, message);
    }
  }

  /** One request a minute: the second call is answered 429. */
  private static MockProvider provider() throws Exception {
    return MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(1), 25));
  }

  /** What the provider's minute passing does to its window: the next request is answered. */
  private static void windowPasses(MockProvider provider) {
    provider.setCaps(new Caps(1_000.0, null));
  }

  private GatedBedrock gated(Admitter admitter) {
    return GatedBedrock.builder()
        .gate(gate)
        .ticker(clock)
        .admitter(admitter)
        .feedback(ProviderFeedback.TO_CALLS_GATE);
  }

  private BedrockRuntimeClient sync(Admitter admitter, MockProvider provider) {
    return gated(admitter)
        .build(
            BedrockRuntimeClient.builder()
                .region(Region.US_EAST_1)
                .credentialsProvider(TestBedrock.credentials())
                .endpointOverride(URI.create(provider.url())));
  }

  private BedrockRuntimeAsyncClient async(Admitter admitter, MockProvider provider) {
    return gated(admitter)
        .buildAsync(
            BedrockRuntimeAsyncClient.builder()
                .httpClient(http)
                .region(Region.US_EAST_1)
                .credentialsProvider(TestBedrock.credentials())
                .endpointOverride(URI.create(provider.url())));
  }

  private static ConverseRequest converse(String text) {
    return ConverseRequest.builder()
        .modelId(MODEL)
        .messages(message(text))
        .inferenceConfig(config -> config.maxTokens(40))
        .build();
  }

  private static ConverseStreamRequest converseStream(String text) {
    return ConverseStreamRequest.builder()
        .modelId(MODEL)
        .messages(message(text))
        .inferenceConfig(config -> config.maxTokens(40))
        .build();
  }

  private static Message message(String text) {
    return Message.builder()
        .role(ConversationRole.USER)
        .content(ContentBlock.fromText(text))
        .build();
  }

  /**
   * Asserts that the 429 was heard and the call sent again through the gate: the provider saw 200,
   * 429, 200; the gate was asked for the first call, the second, and again for the second after its
   * 429 (deferred, then admitted with the deferral's booking); every grant was released.
   */
  private void assertSentAgainThroughTheGate(MockProvider provider, VirtualWait wait) {
    assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429, 200);
    assertThat(gate.signals()).filteredOn(s -> s.status() == 429).hasSize(1);
    assertThat(gate.admissions())
        .extracting(a -> a.getClass().getSimpleName())
        .containsExactly("Admitted", "Admitted", "Deferred", "Admitted");
    Admission.Deferred deferred = (Admission.Deferred) gate.admissions().get(2);
    assertThat(gate.requests().get(2).booking()).as("the first ask after the 429").isNull();
    assertThat(gate.requests().get(3).booking()).isEqualTo(deferred.booking());
    assertThat(wait.waits).containsExactly(deferred.retryAfter());
    assertThat(gate.releases()).hasSize(3);
    assertThat(gate.outstanding()).isZero();
  }

  /** Mutation tried: the client without the resending proxy (the ThrottlingException is thrown). */
  @Test
  void aThrottledCallIsSentAgainWhenTheGateAdmitsIt() throws Exception {
    try (MockProvider provider = provider();
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      VirtualWait wait = new VirtualWait(() -> windowPasses(provider));
      try (BedrockRuntimeClient bedrock = sync(wait, provider)) {
        bedrock.converse(converse("first"));

        ConverseResponse second = bedrock.converse(converse("second"));

        assertThat(second.usage().outputTokens()).isEqualTo(25);
        assertSentAgainThroughTheGate(provider, wait);
      }
    }
  }

  @Test
  void aThrottledAsynchronousCallIsSentAgainWhenTheGateAdmitsIt() throws Exception {
    try (MockProvider provider = provider();
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      VirtualWait wait = new VirtualWait(() -> windowPasses(provider));
      try (BedrockRuntimeAsyncClient bedrock = async(wait, provider)) {
        bedrock.converse(converse("first")).get(10, TimeUnit.SECONDS);

        ConverseResponse second = bedrock.converse(converse("second")).get(10, TimeUnit.SECONDS);

        assertThat(second.usage().outputTokens()).isEqualTo(25);
        assertSentAgainThroughTheGate(provider, wait);
      }
    }
  }

  /**
   * Bedrock refuses a stream before its first event: the handler hears neither the 429 nor an
   * error, only the stream of the call sent again. Mutation tried: the handler passed to the SDK as
   * it is (it hears the ThrottlingException before the stream).
   */
  @Test
  void aThrottledStreamIsSentAgainAndItsHandlerHearsOnlyTheStream() throws Exception {
    try (MockProvider provider = provider();
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      VirtualWait wait = new VirtualWait(() -> windowPasses(provider));
      try (BedrockRuntimeAsyncClient bedrock = async(wait, provider)) {
        bedrock.converse(converse("first")).get(10, TimeUnit.SECONDS);
        List<String> text = new CopyOnWriteArrayList<>();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        ConverseStreamResponseHandler handler =
            ConverseStreamResponseHandler.builder()
                .onError(errors::add)
                .subscriber(
                    ConverseStreamResponseHandler.Visitor.builder()
                        .onContentBlockDelta(
                            (ContentBlockDeltaEvent delta) -> text.add(delta.delta().text()))
                        .build())
                .build();

        bedrock.converseStream(converseStream("second"), handler).get(10, TimeUnit.SECONDS);

        assertThat(errors).isEmpty();
        assertThat(text).isNotEmpty();
        assertThat(provider.records())
            .extracting(RequestRecord::status)
            .containsExactly(200, 429, 200);
        assertThat(gate.admissions())
            .extracting(a -> a.getClass().getSimpleName())
            .containsExactly("Admitted", "Admitted", "Deferred", "Admitted");
        awaitReleased(3);
        assertThat(gate.outstanding()).isZero();
      }
    }
  }

  /**
   * With the direct admitter the gate's deferral reaches the caller in place of the provider's
   * refusal: the call was not sent again, and the deferral carries the booking to come back with.
   * Mutation tried: the client without the resending proxy (the ThrottlingException is thrown).
   */
  @Test
  void aThrottledCallTheGateDefersReachesTheCallerAsTheDeferral() throws Exception {
    try (MockProvider provider = provider();
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient bedrock = sync(Admitter.direct(), provider)) {
      bedrock.converse(converse("first"));

      assertThatThrownBy(() -> bedrock.converse(converse("second")))
          .isInstanceOfSatisfying(
              DeferredException.class,
              e -> {
                assertThat(e.retryAfter()).isPositive();
                assertThat(e.booking())
                    .isEqualTo(((Admission.Deferred) gate.admissions().get(2)).booking());
              });

      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429);
      assertThat(gate.requests()).hasSize(3);
      assertThat(gate.releases()).hasSize(2);
      assertThat(gate.outstanding()).isZero();
    }
  }

  /** The stream's handler hears the gate's deferral, once, and its future fails with it. */
  @Test
  void aThrottledStreamTheGateDefersReachesItsHandlerAsTheDeferral() throws Exception {
    try (MockProvider provider = provider();
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeAsyncClient bedrock = async(Admitter.direct(), provider)) {
      bedrock.converse(converse("first")).get(10, TimeUnit.SECONDS);
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      ConverseStreamResponseHandler handler =
          ConverseStreamResponseHandler.builder()
              .onError(errors::add)
              .subscriber(ConverseStreamResponseHandler.Visitor.builder().build())
              .build();

      assertThatThrownBy(
              () ->
                  bedrock
                      .converseStream(converseStream("second"), handler)
                      .get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(DeferredException.class);

      assertThat(errors).singleElement().isInstanceOf(DeferredException.class);
      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429);
      assertThat(gate.releases()).hasSize(2);
      assertThat(gate.outstanding()).isZero();
    }
  }

  /**
   * A feedback that does not tell the gate leaves the gate nothing to decide by: the refusal
   * reaches the caller as the SDK's exception, and nothing is sent again.
   */
  @Test
  void withoutFeedbackToTheGateTheThrottlingExceptionReachesTheCaller() throws Exception {
    try (MockProvider provider = provider();
        GateContext.Scope scope = GateContext.of("acme", "P1").open();
        BedrockRuntimeClient bedrock =
            GatedBedrock.builder()
                .gate(gate)
                .ticker(clock)
                .feedback(ProviderFeedback.NONE)
                .build(
                    BedrockRuntimeClient.builder()
                        .region(Region.US_EAST_1)
                        .credentialsProvider(TestBedrock.credentials())
                        .endpointOverride(URI.create(provider.url())))) {
      bedrock.converse(converse("first"));

      assertThatThrownBy(() -> bedrock.converse(converse("second")))
          .isInstanceOf(ThrottlingException.class);

      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 429);
      assertThat(gate.requests()).hasSize(2);
    }
  }

  private void awaitReleased(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (gate.releases().size() < count && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }
}
