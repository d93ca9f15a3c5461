package io.backpressure.bedrock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.SlowSend;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.bedrockruntime.BedrockRuntimeClient;
import software.amazon.awssdk.services.bedrockruntime.model.ContentBlock;
import software.amazon.awssdk.services.bedrockruntime.model.ConversationRole;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseRequest;
import software.amazon.awssdk.services.bedrockruntime.model.ConverseResponse;
import software.amazon.awssdk.services.bedrockruntime.model.Message;

/**
 * The Bedrock runtime client with the gate's interceptor, against the mock provider's Bedrock
 * dialect: a call must leave within its gate's {@code sendWithin()} (a twentieth of the 1 s safe
 * window: 50 ms of virtual time). An interceptor of the application's, whose {@code
 * modifyHttpRequest} runs before the gate's (which {@link GatedBedrock} adds after the builder's
 * own), lets virtual time pass as a slow client would: a call that reaches the gate's hook late
 * gives its grant back unused and is admitted again before it is signed and sent; one in time is
 * admitted once; one not admitted the second time fails with the gate's answer and is not sent.
 */
class SendCheckTest {
  private static final String MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate = SlowSend.gate("bedrock/us-east-1/claude-3-5-haiku", clock);

  /** Runs from the admission to the gate's last hook. */
  private final SlowSend slowSend = new SlowSend(gate, clock);

  private final ExecutionInterceptor slow =
      new ExecutionInterceptor() {
        @Override
        public SdkHttpRequest modifyHttpRequest(
            Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
          slowSend.run();
          return context.httpRequest();
        }
      };

  /** The gated client, its send bound measured on {@link #clock}, with the slow interceptor. */
  private BedrockRuntimeClient client(MockProvider provider) {
    return GatedBedrock.builder()
        .gate(gate)
        .ticker(clock)
        .build(
            TestBedrock.client(provider)
                .overrideConfiguration(c -> c.addExecutionInterceptor(slow)));
  }

  private static ConverseRequest request() {
    return ConverseRequest.builder()
        .modelId(MODEL)
        .messages(
            Message.builder()
                .role(ConversationRole.USER)
                .content(ContentBlock.fromText("hello bedrock"))
                .build())
        .inferenceConfig(config -> config.maxTokens(40))
        .build();
  }

  @Test
  void theBoundIsFiftyMillisecondsHere() {
    assertThat(gate.sendWithin()).isEqualTo(Duration.ofMillis(50));
  }

  @Test
  void aCallInTimeIsAdmittedOnce() throws Exception {
    slowSend.takes(Duration.ofMillis(50));
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        BedrockRuntimeClient bedrock = client(provider);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {

      ConverseResponse reply = bedrock.converse(request());

      assertThat(gate.admissions()).hasSize(1);
      assertThat(provider.records()).hasSize(1);
      assertThat(gate.releasedWith())
          .containsExactly(Cost.requests(1).tokens(reply.usage().totalTokens()));
      assertThat(gate.outstanding()).isZero();
    }
  }

  /** Mutation tried: no {@code modifyHttpRequest} in the gate's interceptor (sent as is). */
  @Test
  void aSlowCallGivesItsGrantBackUnusedAndIsAdmittedAgainBeforeItIsSent() throws Exception {
    slowSend.takes(Duration.ofMillis(51));
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        BedrockRuntimeClient bedrock = client(provider);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {

      ConverseResponse reply = bedrock.converse(request());

      assertThat(gate.admissions())
          .hasSize(2)
          .allSatisfy(a -> assertThat(a).isInstanceOf(Admission.Admitted.class));
      Admission.Admitted second = (Admission.Admitted) gate.admissions().get(1);
      assertThat(gate.releases().get(0).actual()).isEqualTo(Cost.requests(0).tokens(0));
      assertThat(gate.releases().get(1).grant()).isEqualTo(second.grant());
      assertThat(gate.releases().get(1).actual())
          .isEqualTo(Cost.requests(1).tokens(reply.usage().totalTokens()));
      assertThat(provider.records()).hasSize(1);
      assertThat(gate.outstanding()).isZero();
    }
  }

  @Test
  void aSlowCallThatIsNotAdmittedAgainFailsWithTheGatesAnswerAndIsNotSent() throws Exception {
    slowSend.takes(Duration.ofMillis(100));
    slowSend.providerPausesMeanwhile();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        BedrockRuntimeClient bedrock = client(provider);
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {

      Throwable thrown = catchThrowable(() -> bedrock.converse(request()));

      assertThat(deferral(thrown)).as("the gate's deferral, as thrown or wrapped").isNotNull();
      assertThat(gate.admissions()).hasSize(2);
      assertThat(gate.admissions().get(1)).isInstanceOf(Admission.Deferred.class);
      assertThat(gate.releasedWith()).containsExactly(Cost.requests(0).tokens(0));
      assertThat(provider.records()).isEmpty();
      assertThat(gate.outstanding()).isZero();
    }
  }

  /** The {@link DeferredException} that {@code thrown} is, or that the SDK wrapped; else null. */
  private static DeferredException deferral(Throwable thrown) {
    for (Throwable e = thrown; e != null; e = e.getCause()) {
      if (e instanceof DeferredException deferred) {
        return deferred;
      }
    }
    return null;
  }
}
