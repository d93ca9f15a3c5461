package io.backpressure.bench;

import com.openai.client.OpenAIClient;
import com.openai.client.OpenAIClientImpl;
import com.openai.core.ClientOptions;
import com.openai.core.RequestOptions;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.backpressure.client.GateContext;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import io.backpressure.openai.GatedOpenAI;
import io.backpressure.tokens.TokenCounter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What the gated openai-java client adds to one chat completion: the same call through the real
 * SDK, once on a bare in-process transport and once with the gate in front of that transport
 * (request body parsed, prompt counted with o200k_base, in-memory admission, answer tapped and
 * parsed for its usage, release). The transport answers at once from memory, so the difference
 * between {@code bare} and {@code gated} is the wrapper's cost per call; {@code countPrompt} is the
 * share of it spent counting the prompt's tokens (o200k_base).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class GatedClientBenchmark {

  /** Characters of the single user message. */
  @Param({"200", "4000"})
  int promptChars;

  private static final byte[] ANSWER =
      ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\","
              + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello there.\"},"
              + "\"finish_reason\":\"stop\",\"logprobs\":null}],"
              + "\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":3,\"total_tokens\":53}}")
          .getBytes(StandardCharsets.UTF_8);

  OpenAIClient bare;
  OpenAIClient gated;
  ChatCompletionCreateParams params;
  String prompt;
  TokenCounter counter;

  @Setup
  public void setUp() {
    Policy policy =
        Policy.builder("bench/gpt-4o-mini")
            .dimension("requests", 1e9, 1e9)
            .dimension("tokens", 1e12, 1e12)
            .priority("P1", 1)
            .grantTtl(Duration.ofMinutes(15))
            .build();
    bare =
        new OpenAIClientImpl(
            ClientOptions.builder()
                .httpClient(new MemoryTransport())
                .apiKey("sk-bench")
                .maxRetries(0)
                .build());
    gated =
        GatedOpenAI.builder()
            .gate(InMemoryGate.create(policy))
            .transport(new MemoryTransport())
            .clientOptions(options -> options.apiKey("sk-bench"))
            .build();
    prompt =
        "The quick brown fox jumps over the lazy dog. "
            .repeat(promptChars / 45 + 1)
            .substring(0, promptChars);
    counter = TokenCounter.forModel("gpt-4o-mini");
    params =
        ChatCompletionCreateParams.builder()
            .model("gpt-4o-mini")
            .addSystemMessage("You are terse.")
            .addUserMessage(prompt)
            .maxCompletionTokens(100)
            .build();
  }

  @TearDown
  public void tearDown() {
    bare.close();
    gated.close();
  }

  @Benchmark
  public ChatCompletion bare() {
    return bare.chat().completions().create(params);
  }

  @Benchmark
  public ChatCompletion gated() {
    try (GateContext.Scope scope = GateContext.of("tenant-1", "P1").open()) {
      return gated.chat().completions().create(params);
    }
  }

  @Benchmark
  public int countPrompt() {
    return counter.count(prompt);
  }

  /** Reads each request's body, as a socket would, and answers a fixed completion from memory. */
  static final class MemoryTransport implements HttpClient {
    @Override
    public HttpResponse execute(HttpRequest request, RequestOptions options) {
      request.body().writeTo(new ByteArrayOutputStream());
      return new Answer();
    }

    @Override
    public CompletableFuture<HttpResponse> executeAsync(
        HttpRequest request, RequestOptions options) {
      return CompletableFuture.completedFuture(execute(request, options));
    }

    @Override
    public void close() {}
  }

  private static final class Answer implements HttpResponse {
    private final InputStream body = new ByteArrayInputStream(ANSWER);

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
      return body;
    }

    @Override
    public void close() {}
  }
}
