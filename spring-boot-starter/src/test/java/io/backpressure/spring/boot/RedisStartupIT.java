package io.backpressure.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.backpressure.client.GateContext;
import io.backpressure.core.Gate;
import io.backpressure.mock.MockProvider;
import io.backpressure.mock.MockProviderConfig;
import io.backpressure.mock.RequestRecord;
import io.backpressure.mock.limit.LimitSpec;
import io.backpressure.mock.limit.WindowModel;
import io.backpressure.redis.ResilientRedisGate;
import io.backpressure.redis.TestRedis;
import io.backpressure.springai.BackpressureAdvisor;
import io.backpressure.springai.OpenAiSendCheck;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * An application whose Redis is down at start-up still starts, and its first calls are gated: the
 * Redis gate connects in the background and the default fail mode (LOCAL) decides until Redis
 * answers. Forty concurrent calls of two tenants through a cold Spring AI {@code ChatClient} with
 * the advisor, against a provider that answers at most five requests in each one-second window:
 * none fails, no 429 reaches the application, and the first class is answered before the third.
 * With Redis up at start-up the same calls, gated in Redis, meet the same. In real time: start-up
 * waits out the first connection for up to ten seconds, and the calls take the eight seconds the
 * cap needs.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisStartupIT {
  private static final int CALLS = 40;
  private static final int REQUESTS_PER_SECOND = 5;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  BackpressureAutoConfiguration.class,
                  SpringAiBackpressureAutoConfiguration.class));

  /** One answered call: its class and when, after the start of the run, it was answered. */
  record Answer(String priority, long nanos) {}

  @Test
  void redisDownAtStartUp_theAppStarts_verifyWarns_andColdCallsMeetNo429WithP1First(
      CapturedOutput output) throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (MockProvider provider =
        MockProvider.start(
            MockProviderConfig.builder()
                .requests(LimitSpec.perSecond(WindowModel.FIXED, REQUESTS_PER_SECOND))
                .latencyMs(50, 150)
                .build())) {
      runner
          .withPropertyValues(
              "backpressure.redis.url=redis://127.0.0.1:" + closedPort,
              "backpressure.redis.connect-timeout=200ms",
              // verify cannot compare policies without Redis: it says so and lets start-up go on.
              "backpressure.policy-ownership=verify",
              // Five requests a second, counted per second; no fail-mode: the default decides.
              "backpressure.targets.openai.policy-file=classpath:cold-start-policy.yaml")
          .withPropertyValues("mock.base-url=" + provider.baseUrl())
          .withUserConfiguration(ColdChatModel.class)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(OpenAiSendCheck.class);
                assertThat(output.getErr() + output.getOut())
                    .contains(
                        "backpressure.policy-ownership=verify could not compare the configured"
                            + " policy with the one stored in Redis")
                    .contains("backpressure.redis.connect-timeout=PT0.2S")
                    .contains("deciding LOCAL by the configured policy");
                Gate gate = context.getBean(Gate.class);
                assertThat(gate).isInstanceOf(ResilientRedisGate.class);
                ResilientRedisGate resilient = (ResilientRedisGate) gate;
                assertThat(resilient.connected()).isFalse();
                ColdRun run =
                    coldCalls(context, provider, "Spring Boot cold start, Redis down at start-up");

                assertThat(run.errors()).as("errors that reached the application").isEmpty();
                assertThat(run.answered()).as("calls the provider answered").isEqualTo(CALLS);
                assertThat(resilient.failOpen().ungatedDecisions())
                    .as("calls decided by the local gate")
                    .isGreaterThanOrEqualTo(CALLS);
                assertThat(median(run.p1()))
                    .as("P1's median answer before P3's")
                    .isLessThan(median(run.p3()));
                assertThat(last(run.p1()))
                    .as("P1's last answer before P3's")
                    .isLessThan(last(run.p3()));
              });
    }
  }

  /**
   * The same application with Redis up at start-up: it logs the policy in force and connects, and
   * the forty cold calls are gated in Redis with the same outcome.
   */
  @Test
  void redisUpAtStartUp_coldCallsMeetNo429WithP1First(CapturedOutput output) throws Exception {
    try (MockProvider provider =
        MockProvider.start(
            MockProviderConfig.builder()
                .requests(LimitSpec.perSecond(WindowModel.FIXED, REQUESTS_PER_SECOND))
                .latencyMs(50, 150)
                .build())) {
      runner
          .withPropertyValues(
              "backpressure.redis.url=" + TestRedis.shared().url(),
              "backpressure.redis.key-prefix=" + TestRedis.freshPrefix(),
              "backpressure.targets.openai.policy-file=classpath:cold-start-policy.yaml")
          .withPropertyValues("mock.base-url=" + provider.baseUrl())
          .withUserConfiguration(ColdChatModel.class)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                ResilientRedisGate resilient = (ResilientRedisGate) context.getBean(Gate.class);
                // Start-up waits up to 10 s for the first connection, and logs the policy in
                // force either way; on a loaded machine the connection may come after it.
                assertThat(output.getErr() + output.getOut())
                    .as("the policy in force, logged at start-up")
                    .containsPattern(
                        "target openai/gpt-4o-mini: (gating by the configured policy, as stored in"
                            + " Redis|Redis not reached yet; deciding LOCAL by the configured"
                            + " policy)");
                assertThat(resilient.awaitConnected(Duration.ofSeconds(30)))
                    .as("connected to Redis within 30 s")
                    .isTrue();

                ColdRun run =
                    coldCalls(context, provider, "Spring Boot cold start, Redis up at start-up");

                assertThat(run.errors()).as("errors that reached the application").isEmpty();
                assertThat(run.answered()).as("calls the provider answered").isEqualTo(CALLS);
                assertThat(median(run.p1()))
                    .as("P1's median answer before P3's")
                    .isLessThan(median(run.p3()));
                assertThat(last(run.p1()))
                    .as("P1's last answer before P3's")
                    .isLessThan(last(run.p3()));
              });
    }
  }

  /**
   * What {@link #coldCalls} saw: the errors that reached the callers, the provider's answers of
   * 200, and the times (from the start of the run, sorted) at which the P1 and the P3 calls were
   * answered.
   */
  record ColdRun(List<String> errors, long answered, List<Long> p1, List<Long> p3) {}

  /**
   * Sends {@link #CALLS} calls at once through a {@code ChatClient} with the starter's advisor over
   * the context's cold {@code ChatModel}, half of tenant acme in P1 and half of globex in P3;
   * prints what they met, headed by {@code label}.
   */
  private static ColdRun coldCalls(
      AssertableApplicationContext context, MockProvider provider, String label)
      throws InterruptedException {
    ChatClient chat =
        ChatClient.builder(context.getBean(ChatModel.class))
            .defaultAdvisors(context.getBean(BackpressureAdvisor.class))
            .build();

    List<Answer> answers = new CopyOnWriteArrayList<>();
    List<String> errors = new CopyOnWriteArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService callers = Executors.newFixedThreadPool(CALLS);
    long start = System.nanoTime();
    try {
      for (int i = 0; i < CALLS; i++) {
        boolean acme = i % 2 == 0;
        GateContext caller = GateContext.of(acme ? "acme" : "globex", acme ? "P1" : "P3");
        String prompt = "question " + i;
        callers.execute(
            () -> {
              try {
                go.await();
                chat.prompt(prompt)
                    .advisors(a -> a.param(GateContext.KEY, caller))
                    .call()
                    .content();
                answers.add(new Answer(caller.priority(), System.nanoTime() - start));
              } catch (Throwable e) {
                errors.add(caller.priority() + ": " + e);
              }
            });
      }
      go.countDown();
    } finally {
      callers.shutdown();
      assertThat(callers.awaitTermination(2, TimeUnit.MINUTES))
          .as("every call came back within two minutes")
          .isTrue();
    }
    double seconds = (System.nanoTime() - start) / 1e9;

    List<RequestRecord> records = provider.records();
    long answered = records.stream().filter(r -> r.status() == 200).count();
    long throttled = records.stream().filter(r -> r.status() == 429).count();
    List<Long> p1 = times(answers, "P1");
    List<Long> p3 = times(answers, "P3");
    ResilientRedisGate resilient = (ResilientRedisGate) context.getBean(Gate.class);
    System.out.printf(
        Locale.ROOT,
        "%s: %d calls, %d errors, %.1f s; provider: %d answered, %d 429s absorbed; %d calls"
            + " decided without Redis; P1 median %.1f s, last %.1f s; P3 median %.1f s, last %.1f"
            + " s%n",
        label,
        CALLS,
        errors.size(),
        seconds,
        answered,
        throttled,
        resilient.failOpen().ungatedDecisions(),
        median(p1) / 1e9,
        last(p1) / 1e9,
        median(p3) / 1e9,
        last(p3) / 1e9);
    return new ColdRun(errors, answered, p1, p3);
  }

  /**
   * Spring AI's OpenAI model as its auto-configuration builds it: with every {@code
   * OpenAiHttpClientBuilderCustomizer} bean, the starter's send check among them.
   */
  @Configuration(proxyBeanMethods = false)
  static class ColdChatModel {
    @Bean
    ChatModel chatModel(
        Environment environment, ObjectProvider<OpenAiHttpClientBuilderCustomizer> customizers) {
      return OpenAiChatModel.builder()
          .options(
              OpenAiChatOptions.builder()
                  .baseUrl(environment.getRequiredProperty("mock.base-url"))
                  .apiKey("sk-mock")
                  .model("gpt-4o-mini")
                  .maxRetries(0)
                  .timeout(Duration.ofSeconds(30))
                  .build())
          .httpClientBuilderCustomizers(customizers.orderedStream().toList())
          .build();
    }
  }

  private static List<Long> times(List<Answer> answers, String priority) {
    List<Long> times = new ArrayList<>();
    for (Answer a : answers) {
      if (a.priority().equals(priority)) {
        times.add(a.nanos());
      }
    }
    times.sort(null);
    return times;
  }

  private static long median(List<Long> sorted) {
    return sorted.isEmpty() ? Long.MAX_VALUE : sorted.get(sorted.size() / 2);
  }

  private static long last(List<Long> sorted) {
    return sorted.isEmpty() ? Long.MAX_VALUE : sorted.get(sorted.size() - 1);
  }
}
