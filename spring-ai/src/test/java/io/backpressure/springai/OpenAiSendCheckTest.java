package io.backpressure.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.GatedCall;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.SlowSend;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.ManualClock;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import io.backpressure.springai.test.MockOpenAi;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;

/**
 * Spring AI's OpenAI model with {@link OpenAiSendCheck}, against the mock provider on loopback: a
 * call must leave within its gate's {@code sendWithin()} (a twentieth of the 1 s safe window: 50 ms
 * of virtual time), counted until OkHttp writes its body. An interceptor of the application's,
 * which runs after the check's own (where a connection would be set up), lets virtual time pass as
 * a cold client would: a call whose body is written late gives its grant back unused and is
 * admitted again first; one in time is admitted once; one not admitted the second time fails with
 * the gate's answer, and the provider never counts it.
 */
class OpenAiSendCheckTest {
  private final ManualClock clock = new ManualClock();
  private final RecordingGate gate = SlowSend.gate("openai/gpt-4o-mini", clock);
  private final GatedCall gated = GatedCall.builder(gate).ticker(clock).build();
  private MockProvider provider;

  /** Runs after the check's interceptor, before the body is written. */
  private final SlowSend slowSend = new SlowSend(gate, clock);

  /** An interceptor after the check's: what runs there comes before the body is written. */
  private final OpenAiHttpClientBuilderCustomizer slow =
      builder ->
          builder.interceptor(
              chain -> {
                slowSend.run();
                return chain.proceed(chain.request());
              });

  @BeforeEach
  void start() throws Exception {
    provider = MockProvider.start(MockAnswers.atOnce(30).build());
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  private ChatResponse call() {
    OpenAiChatModel model =
        MockOpenAi.chatModel(provider, Duration.ofSeconds(20), new OpenAiSendCheck(), slow);
    return gated.call(
        GateContext.of("acme", "P1"),
        Cost.requests(1).tokens(100),
        null,
        () -> model.call(new Prompt("hello")),
        reply -> Cost.requests(1).tokens(reply.getMetadata().getUsage().getTotalTokens()));
  }

  @Test
  void aCallWrittenInTimeIsAdmittedOnce() {
    slowSend.takes(Duration.ofMillis(50));

    ChatResponse reply = call();

    assertThat(reply.getResult().getOutput().getText()).isNotEmpty();
    assertThat(gate.admissions()).hasSize(1);
    assertThat(provider.records()).hasSize(1);
    assertThat(gate.outstanding()).isZero();
  }

  /**
   * Mutation tried: the check made in the interceptor, before it proceeds (as before): the late
   * call is sent on its first admission.
   */
  @Test
  void aCallWrittenLateGivesItsGrantBackUnusedAndIsAdmittedAgainFirst() {
    slowSend.takes(Duration.ofMillis(51));

    ChatResponse reply = call();

    assertThat(reply.getResult().getOutput().getText()).isNotEmpty();
    assertThat(gate.admissions())
        .hasSize(2)
        .allSatisfy(a -> assertThat(a).isInstanceOf(Admission.Admitted.class));
    Admission.Admitted second = (Admission.Admitted) gate.admissions().get(1);
    assertThat(gate.releases().get(0).actual()).isEqualTo(Cost.requests(0).tokens(0));
    assertThat(gate.releases().get(1).grant()).isEqualTo(second.grant());
    assertThat(gate.releases().get(1).actual().amount("requests")).isEqualTo(1);
    assertThat(provider.records()).hasSize(1);
    assertThat(gate.outstanding()).isZero();
  }

  @Test
  void aLateCallThatIsNotAdmittedAgainFailsWithTheGatesAnswerAndIsNeverCounted() {
    slowSend.takes(Duration.ofMillis(100));
    slowSend.providerPausesMeanwhile();

    assertThatThrownBy(this::call).isInstanceOf(DeferredException.class);

    assertThat(gate.admissions()).hasSize(2);
    assertThat(gate.admissions().get(1)).isInstanceOf(Admission.Deferred.class);
    assertThat(gate.releasedWith()).containsExactly(Cost.requests(0).tokens(0));
    assertThat(provider.records()).isEmpty();
    assertThat(gate.outstanding()).isZero();
  }
}
