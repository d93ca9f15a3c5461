package io.backpressure.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.core.RequestOptions;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.client.ModelRoutes;
import io.backpressure.client.ProviderFeedback;
import io.backpressure.client.ProviderResponse;
import io.backpressure.client.RejectedException;
import io.backpressure.client.test.LoopbackResponder;
import io.backpressure.client.test.MockAnswers;
import io.backpressure.client.test.TestGates;
import io.backpressure.core.Admission;
import io.backpressure.core.Cost;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.ManualClock;
import io.backpressure.core.Policy;
import io.backpressure.core.RejectReason;
import io.backpressure.core.testing.RecordingGate;
import io.backpressure.mock.MockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The real openai-java client, gated, against the mock provider: blocking calls. */
class GatedOpenAITest {

  private final ManualClock clock = new ManualClock();
  private final List<ProviderResponse> answers = new CopyOnWriteArrayList<>();

  private RecordingGate gate(String target, double requestsPerSecond) {
    Policy policy =
        Policy.builder(target)
            .dimension("requests", requestsPerSecond, requestsPerSecond)
            .tokensPerSecond(100_000)
            .priority("P1", 0.6)
            .priority("P2", 0.4)
            .build();
    return new RecordingGate(InMemoryGate.create(policy, clock));
  }

  private OpenAIClient client(String baseUrl, GatedOpenAI builder) {
    return builder
        .feedback(ProviderFeedback.TO_CALLS_GATE.andThen(answers::add))
        .clientOptions(
            options ->
                options
                    .baseUrl(baseUrl)
                    .apiKey("sk-test")
                    .maxRetries(5)
                    .timeout(Duration.ofSeconds(20)))
        .build();
  }

  private static ChatCompletionCreateParams params(String model, String prompt) {
    return ChatCompletionCreateParams.builder()
        .model(model)
        .addUserMessage(prompt)
        .maxCompletionTokens(40)
        .build();
  }

  @Test
  void admitsBeforeSendingAndReleasesWithTheAnswersUsage() throws Exception {
    RecordingGate gate = gate("openai/gpt-4o-mini", 10);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider.baseUrl(), GatedOpenAI.builder().gate(gate));
      try {
        ChatCompletion reply =
            client.chat().completions().create(params("gpt-4o-mini", "hello world"));

        // 3 framing + "user" + "hello world" + 3 priming, in o200k_base
        TestGates.assertAskedOnce(gate, "acme", "P1", Cost.requests(1).tokens(9), 40L);
        long total = reply.usage().orElseThrow().totalTokens();
        assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(total));
        assertThat(gate.releases()).allMatch(RecordingGate.Release::applied);
        assertThat(answers)
            .singleElement()
            .satisfies(
                answer -> {
                  assertThat(answer.statusCode()).isEqualTo(200);
                  assertThat(answer.target()).isEqualTo("openai/gpt-4o-mini");
                  assertThat(answer.model()).isEqualTo("gpt-4o-mini");
                });
      } finally {
        client.close();
      }
    }
  }

  @Test
  void aDeferredCallIsNotSentAndItsRetryRedeemsTheBooking() throws Exception {
    RecordingGate gate = gate("openai/gpt-4o-mini", 1);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build())) {
      OpenAIClient client = client(provider.baseUrl(), GatedOpenAI.builder().gate(gate));
      try (GateContext.Scope scope = GateContext.of("acme", "P2").open()) {
        client.chat().completions().create(params("gpt-4o-mini", "first"));

        DeferredException deferred =
            org.junit.jupiter.api.Assertions.assertThrows(
                DeferredException.class,
                () -> client.chat().completions().create(params("gpt-4o-mini", "second")));
        assertThat(deferred.retryAfter()).isPositive();
        assertThat(deferred.target()).isEqualTo("openai/gpt-4o-mini");
        assertThat(provider.records()).hasSize(1);

        clock.advance(deferred.retryAfter());
        try (GateContext.Scope retry =
            GateContext.of("acme", "P2").withBooking(deferred.booking()).open()) {
          client.chat().completions().create(params("gpt-4o-mini", "second"));
        }
        assertThat(gate.requests().get(2).booking()).isEqualTo(deferred.booking());
        assertThat(provider.records()).hasSize(2);
        assertThat(gate.outstanding()).isZero();
      } finally {
        client.close();
      }
    }
  }

  @Test
  void a429WithHeadersReachesTheFeedbackOnceAndTheCallerAsADeferral() throws Exception {
    RecordingGate gate = gate("openai/gpt-4o-mini", 100);
    try (MockProvider provider =
            MockProvider.start(MockAnswers.oneRequestPer(Duration.ofMinutes(10), 25));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider.baseUrl(), GatedOpenAI.builder().gate(gate));
      try {
        client.chat().completions().create(params("gpt-4o-mini", "first"));
        // A timeout that outlasts the provider's ten minutes: with the client's 20 s the call
        // would end ExpiredException, its turn past its deadline (SdkTimeoutTest).
        RequestOptions patient = RequestOptions.builder().timeout(Duration.ofMinutes(15)).build();
        assertThatThrownBy(
                () -> client.chat().completions().create(params("gpt-4o-mini", "second"), patient))
            .isInstanceOfSatisfying(
                DeferredException.class, e -> assertThat(e.retryAfter()).isPositive());

        // maxRetries(5) was asked for, and overridden: the provider saw the 429 once.
        assertThat(provider.records()).extracting(r -> r.status()).containsExactly(200, 429);
        ProviderResponse limited = answers.get(1);
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.header("x-ratelimit-limit-requests")).isEqualTo("1");
        assertThat(limited.header("X-RateLimit-Remaining-Requests")).isEqualTo("0");
        assertThat(Long.parseLong(limited.header("retry-after-ms"))).isPositive();
        assertThat(gate.releases().get(1).actual()).isEqualTo(Cost.requests(1).tokens(0));
        assertThat(gate.outstanding()).isZero();
      } finally {
        client.close();
      }
    }
  }

  @Test
  void a429WithoutHeadersIsReleasedReportedAndDeferredToo() throws Exception {
    RecordingGate gate = gate("openai/gpt-4o-mini", 100);
    String error =
        "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\",\"param\":null,"
            + "\"code\":\"rate_limit_exceeded\"}}";
    try (LoopbackResponder responder =
            LoopbackResponder.start(LoopbackResponder.Answer.json(429, Map.of(), error));
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(responder.baseUrl() + "/v1", GatedOpenAI.builder().gate(gate));
      try {
        assertThatThrownBy(() -> client.chat().completions().create(params("gpt-4o-mini", "hi")))
            .isInstanceOfSatisfying(
                DeferredException.class, e -> assertThat(e.retryAfter()).isPositive());

        assertThat(responder.requests()).hasSize(1);
        assertThat(answers)
            .singleElement()
            .satisfies(
                answer -> {
                  assertThat(answer.statusCode()).isEqualTo(429);
                  assertThat(answer.header("retry-after")).isNull();
                  assertThat(answer.header("x-ratelimit-remaining-requests")).isNull();
                });
        assertThat(gate.releasedWith()).containsExactly(Cost.requests(1).tokens(0));
      } finally {
        client.close();
      }
    }
  }

  @Test
  void routesEachModelToItsOwnGate() throws Exception {
    RecordingGate mini = gate("openai/gpt-4o-mini", 10);
    RecordingGate other = gate("openai/gpt-4.1", 10);
    ModelRoutes routes =
        ModelRoutes.builder().route("gpt-4o-mini*", mini).route("gpt-4.1*", other).build();
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build());
        GateContext.Scope scope = GateContext.of("acme", "P1").open()) {
      OpenAIClient client = client(provider.baseUrl(), GatedOpenAI.builder().routes(routes));
      try {
        client.chat().completions().create(params("gpt-4o-mini-2024-07-18", "a"));
        client.chat().completions().create(params("gpt-4.1-nano", "b"));
        client.chat().completions().create(params("gpt-4.1", "c"));

        assertThat(mini.requests()).hasSize(1);
        assertThat(other.requests()).hasSize(2);
        assertThatThrownBy(() -> client.chat().completions().create(params("o3-mini", "d")))
            .isInstanceOfSatisfying(
                RejectedException.class,
                e -> {
                  assertThat(e.reason()).isEqualTo(RejectReason.INVALID_REQUEST);
                  assertThat(e.getMessage())
                      .contains("no route for model 'o3-mini'")
                      .contains("gpt-4o-mini* -> openai/gpt-4o-mini");
                });
        assertThat(provider.records()).hasSize(3);
      } finally {
        client.close();
      }
    }
  }

  @Test
  void refusesACallWithNoCallerWithoutSendingIt() throws Exception {
    RecordingGate gate = gate("openai/gpt-4o-mini", 10);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build())) {
      OpenAIClient client = client(provider.baseUrl(), GatedOpenAI.builder().gate(gate));
      try {
        assertThatThrownBy(() -> client.chat().completions().create(params("gpt-4o-mini", "hi")))
            .isInstanceOf(RejectedException.class)
            .hasMessageContaining("no caller for this call")
            .hasMessageContaining("GateContext.of(tenant, priority).open()");
        try (GateContext.Scope scope = GateContext.of("acme", "P9").open()) {
          assertThatThrownBy(() -> client.chat().completions().create(params("gpt-4o-mini", "hi")))
              .isInstanceOfSatisfying(
                  RejectedException.class,
                  e -> assertThat(e.reason()).isEqualTo(RejectReason.UNKNOWN_PRIORITY));
        }
        assertThat(provider.records()).isEmpty();
        assertThat(gate.admissions()).allMatch(a -> a instanceof Admission.Rejected);
      } finally {
        client.close();
      }
    }
  }

  @Test
  void theAsyncClientTakesItsCallerFromHeadersAndADeferralFailsItsFuture() throws Exception {
    RecordingGate gate = gate("openai/gpt-4o-mini", 1);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build())) {
      OpenAIClient shared = client(provider.baseUrl(), GatedOpenAI.builder().gate(gate));
      OpenAIClient client =
          shared.withOptions(o -> GateContext.of("acme", "P1").headers().forEach(o::putHeader));
      try {
        ChatCompletion reply =
            client.async().chat().completions().create(params("gpt-4o-mini", "first")).get();
        assertThat(gate.requests().get(0).tenant()).isEqualTo("acme");
        assertThat(gate.releasedWith())
            .containsExactly(Cost.requests(1).tokens(reply.usage().orElseThrow().totalTokens()));

        var second = client.async().chat().completions().create(params("gpt-4o-mini", "second"));
        assertThatThrownBy(second::get).hasCauseInstanceOf(DeferredException.class);
        assertThat(provider.records()).hasSize(1);
      } finally {
        shared.close();
      }
    }
  }

  @Test
  void aResolverCanNameTheCallerInsteadOfTheContext() throws Exception {
    RecordingGate gate = gate("openai/gpt-4o-mini", 10);
    try (MockProvider provider = MockProvider.start(MockAnswers.atOnce(25).build())) {
      OpenAIClient client =
          client(
              provider.baseUrl(),
              GatedOpenAI.builder()
                  .gate(gate)
                  .callerResolver(call -> GateContext.of("batch-" + call.model(), "P2")));
      try {
        client.chat().completions().create(params("gpt-4o-mini", "hi"));
        assertThat(gate.requests())
            .singleElement()
            .satisfies(
                request -> {
                  assertThat(request.tenant()).isEqualTo("batch-gpt-4o-mini");
                  assertThat(request.priority()).isEqualTo("P2");
                });
      } finally {
        client.close();
      }
    }
  }

  @Test
  void passesUngatedEndpointsThrough() throws Exception {
    RecordingGate gate = gate("openai/gpt-4o-mini", 10);
    try (LoopbackResponder responder =
        LoopbackResponder.start(
            LoopbackResponder.Answer.json(200, Map.of(), "{\"object\":\"list\",\"data\":[]}"))) {
      OpenAIClient client =
          client(responder.baseUrl() + "/v1", GatedOpenAI.builder().gate(gate))
              .withOptions(o -> GateContext.of("acme", "P1").headers().forEach(o::putHeader));
      try {
        assertThat(client.models().list().data()).isEmpty();
        assertThat(gate.requests()).isEmpty();
        assertThat(responder.requestHeaders().get(0)).doesNotContainKeys("x-backpressure-tenant");
      } finally {
        client.close();
      }
    }
  }
}
