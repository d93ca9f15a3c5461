package io.backpressure.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.backpressure.client.DeferredException;
import io.backpressure.client.GateContext;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Four tenants call the mock provider as fast as the gate lets them, in real time, through
 * LangChain4j's OpenAI model with its retries off: the provider, which caps requests in fixed
 * one-second windows, never answers 429.
 */
class AtTheCapIT {
  private static final int CAP_PER_SECOND = 10;

  /**
   * A margin for the variation of the delay from an admission to the provider's count of it: the
   * one-second safe window is widened by it and the cap scaled to keep the window's allowance
   * ({@link Policy#withSendMargin}). With a window of exactly the period a loaded machine's delays
   * let an 11th call into one provider second (seen in CI: "Please try again in 3ms").
   */
  private static final Duration SEND_MARGIN = Duration.ofMillis(100);

  private static final int CALLS_PER_TENANT = 8;

  @Test
  void fourTenantsAtTheCapSeeNo429() throws Exception {
    try (MockProvider provider =
        MockProvider.start(
            MockProviderConfig.builder()
                .latencyMs(5, 20)
                .requests(LimitSpec.perSecond(WindowModel.FIXED, CAP_PER_SECOND))
                .build())) {
      Gate gate =
          InMemoryGate.create(
              Policy.builder("openai/gpt-4o-mini")
                  .requestsPerSecond(CAP_PER_SECOND)
                  .tokensPerSecond(100_000)
                  .priority("P1", 1)
                  .safeWindow(Duration.ofSeconds(1))
                  .sendMargin(SEND_MARGIN)
                  .build());
      ChatModel model =
          GatedChatModel.builder(
                  OpenAiChatModel.builder()
                      .baseUrl(provider.baseUrl())
                      .apiKey("sk-mock")
                      .modelName("gpt-4o-mini")
                      .maxRetries(0)
                      .timeout(Duration.ofSeconds(30))
                      .build(),
                  gate)
              .build();
      // The first call through a new client loads classes and opens its connection: it reaches the
      // provider up to a second after its admission, into a provider window the gate had already
      // left. Let that window pass before the run; later calls arrive within milliseconds.
      GateContext.of("warm-up", "P1").call(() -> model.chat("warm-up"));
      Thread.sleep(1_100);
      AtomicInteger deferrals = new AtomicInteger();
      ExecutorService tenants = Executors.newFixedThreadPool(4);
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        GateContext context = GateContext.of("tenant-" + t, "P1");
        done.add(tenants.submit(() -> callUntilDone(model, context, deferrals)));
      }
      int answered = 0;
      for (Future<Integer> f : done) {
        answered += f.get();
      }
      tenants.shutdown();

      List<RequestRecord> records = provider.records();
      assertThat(answered).isEqualTo(4 * CALLS_PER_TENANT);
      assertThat(records).allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
      assertThat(records).hasSize(1 + 4 * CALLS_PER_TENANT);
      assertThat(deferrals.get())
          .as("the gate held calls back, so the run was at the cap")
          .isPositive();
    }
  }

  /** Makes this tenant's calls one after another, sleeping out each deferral before retrying. */
  private static int callUntilDone(ChatModel model, GateContext context, AtomicInteger deferrals)
      throws Exception {
    int answered = 0;
    while (answered < CALLS_PER_TENANT) {
      GateContext attempt = context;
      while (true) {
        try {
          attempt.call(() -> model.chat("hello from " + context.tenant()));
          answered++;
          break;
        } catch (DeferredException e) {
          deferrals.incrementAndGet();
          Thread.sleep(Math.max(1, e.retryAfter().toMillis()));
          attempt = context.withBooking(e.booking());
        }
      }
    }
    return answered;
  }
}
