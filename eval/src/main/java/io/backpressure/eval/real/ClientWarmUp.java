package io.backpressure.eval.real;

import com.openai.client.OpenAIClient;
import com.openai.core.RequestOptions;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import io.backpressure.client.CostModel;
import io.backpressure.client.GateContext;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.openai.GatedOpenAI;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * Runs one call through a gated openai-java client of its own, against an in-process answer and a
 * gate of its own, before a run starts: the first call in a JVM loads the SDK's classes (Kotlin,
 * Jackson's Kotlin module, the request and response models): in a demo run the first call of each
 * slot took about 1.3 s before its request left, which would count as slot time and latency of the
 * run's first calls, a cost of process start-up the simulator does not model. Nothing is sent to
 * the provider and nothing touches the run's gate. Stateless.
 */
final class ClientWarmUp {
  private static final byte[] COMPLETION =
      ("{\"id\":\"warm-up\",\"object\":\"chat.completion\",\"created\":0,"
              + "\"model\":\"mock\",\"choices\":[{\"index\":0,\"finish_reason\":\"stop\",\"message\":{\"role\":\"assistant\","
              + "\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}")
          .getBytes(StandardCharsets.UTF_8);

  private ClientWarmUp() {}

  /** Makes one blocking call of {@code call}'s shape, charged as {@code costModel} says. */
  static void run(CostModel costModel) {
    Policy policy =
        Policy.builder("warm-up")
            .requestsPerMinute(60)
            .tokensPerMinute(1_000_000)
            .priority("P1", 1.0)
            .build();
    CallInput call = new CallInput("warm-up", 0, "warm-up", "P1", 0, 100, 50, null, 0, 0, 0);
    OpenAIClient client =
        GatedOpenAI.builder()
            .gate(InMemoryGate.create(policy))
            .costModel(costModel)
            .transport(new Canned())
            .clientOptions(options -> options.baseUrl("http://127.0.0.1:1/v1").apiKey("mock"))
            .build();
    try (GateContext.Scope scope = GateContext.of(call.tenant(), call.priority()).open()) {
      client.chat().completions().create(OpenAiProvider.params(call));
    } finally {
      client.close();
    }
  }

  /** A transport that answers every request with the same completion. */
  private static final class Canned implements HttpClient {
    @Override
    public HttpResponse execute(HttpRequest request, RequestOptions options) {
      return new HttpResponse() {
        @Override
        public int statusCode() {
          return 200;
        }

        @Override
        public Headers headers() {
          return Headers.builder().put("content-type", "application/json").build();
        }

        @Override
        public InputStream body() {
          return new ByteArrayInputStream(COMPLETION);
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public CompletableFuture<HttpResponse> executeAsync(
        HttpRequest request, RequestOptions options) {
      return CompletableFuture.completedFuture(execute(request, options));
    }

    @Override
    public void close() {}
  }
}
