package io.backpressure.langchain4j;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpClientBuilderLoader;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.http.client.sse.ServerSentEventContext;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import io.backpressure.client.GatedCall;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * LangChain4j's HTTP client with the send check of the gated models: just before a request leaves,
 * it checks that the call {@link GatedChatModel} or {@link GatedStreamingChatModel} admitted is
 * still in time for its admission ({@link GatedCall#beforeSend()}). A call that reaches the HTTP
 * client later than its gate's {@code sendWithin()} after its admission (a cold model's first calls
 * take a while to build and serialise their request) gives its grant back unused and asks the gate
 * again before it is sent, so that calls admitted in different windows of the provider do not
 * arrive in one. A call that is not admitted the second time fails as the decorator's first
 * admission would (waiting up to its wait budget, or {@code DeferredException}), and nothing is
 * sent.
 *
 * <p>This is the one place the moment of sending can be seen from outside the model: the decorators
 * wrap a model that is already built, and a model's own listeners run before it builds its request
 * (and may not throw). So the wrapped model is built with this builder:
 *
 * <pre>{@code
 * ChatModel openAi = OpenAiChatModel.builder()
 *     .httpClientBuilder(SendCheckingHttpClientBuilder.create())  // or .around(JdkHttpClient.builder())
 *     .maxRetries(0)
 *     ...
 *     .build();
 * ChatModel model = GatedChatModel.builder(openAi, gate).build();
 * }</pre>
 *
 * <p>The same client hands each answer of a gated call to the gate ({@link GatedCall#answered}):
 * its status and headers ({@code x-ratelimit-remaining-*}, {@code retry-after}), or a refusal's
 * status and body as LangChain4j's {@code HttpException} keeps them, so that the gate follows the
 * provider's own count and retry-after and reads a quota or spend limit as a stop (the decorators'
 * {@code providerFeedback(false)} turns it off). A stream's answer is heard when it opens, before
 * its first event, on the thread the HTTP client delivers it on.
 *
 * <p>A model built without it is sent unchecked, however long it takes after its admission. Only
 * the first request of a call is checked; requests of threads that run no gated call pass as they
 * are. Not thread-safe while it is configured (as any builder); the clients it builds are as
 * thread-safe as the ones they wrap.
 */
public final class SendCheckingHttpClientBuilder implements HttpClientBuilder {
  private final HttpClientBuilder delegate;

  private SendCheckingHttpClientBuilder(HttpClientBuilder delegate) {
    this.delegate = delegate;
  }

  /** Around the HTTP client LangChain4j finds on the class path, as its models do by default. */
  public static SendCheckingHttpClientBuilder create() {
    return around(HttpClientBuilderLoader.loadHttpClientBuilder());
  }

  /** Around {@code delegate}, for example {@code JdkHttpClient.builder()}. */
  public static SendCheckingHttpClientBuilder around(HttpClientBuilder delegate) {
    return new SendCheckingHttpClientBuilder(Objects.requireNonNull(delegate, "delegate"));
  }

  @Override
  public Duration connectTimeout() {
    return delegate.connectTimeout();
  }

  @Override
  public SendCheckingHttpClientBuilder connectTimeout(Duration timeout) {
    delegate.connectTimeout(timeout);
    return this;
  }

  @Override
  public Duration readTimeout() {
    return delegate.readTimeout();
  }

  @Override
  public SendCheckingHttpClientBuilder readTimeout(Duration timeout) {
    delegate.readTimeout(timeout);
    return this;
  }

  @Override
  public HttpClient build() {
    return new SendChecking(delegate.build());
  }

  /**
   * {@code delegate} with {@link GatedCall#beforeSend()} before every request, and a call's answer
   * handed to {@link GatedCall#answered} after it.
   */
  private record SendChecking(HttpClient delegate) implements HttpClient {
    @Override
    public SuccessfulHttpResponse execute(HttpRequest request) {
      GatedCall.beforeSend();
      SuccessfulHttpResponse response;
      try {
        response = delegate.execute(request);
      } catch (HttpException refused) {
        // LangChain4j keeps a refusal's status and body, not its headers.
        GatedCall.answered(refused.statusCode(), Map.of(), refused.getMessage());
        throw refused;
      }
      GatedCall.answered(response.statusCode(), lowerCase(response.headers()), null);
      return response;
    }

    @Override
    public void execute(HttpRequest request, ServerSentEventListener listener) {
      GatedCall.beforeSend();
      delegate.execute(request, new Heard(listener, GatedCall.hearing()));
    }

    @Override
    public void execute(
        HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
      GatedCall.beforeSend();
      delegate.execute(request, parser, new Heard(listener, GatedCall.hearing()));
    }
  }

  /**
   * {@code listener}, with the stream's answer handed to {@code hearing} first: its status and
   * headers when it opens (before its first event), or a refusal's status and body as LangChain4j's
   * {@code HttpException} keeps them. The events go to {@code listener} as they come.
   */
  private record Heard(ServerSentEventListener listener, GatedCall.Hearing hearing)
      implements ServerSentEventListener {
    @Override
    public void onOpen(SuccessfulHttpResponse response) {
      hearing.answered(response.statusCode(), lowerCase(response.headers()), null);
      listener.onOpen(response);
    }

    @Override
    public void onEvent(ServerSentEvent event, ServerSentEventContext context) {
      listener.onEvent(event, context);
    }

    @Override
    public void onEvent(ServerSentEvent event) {
      listener.onEvent(event);
    }

    @Override
    public void onError(Throwable error) {
      if (error instanceof HttpException refused) {
        hearing.answered(refused.statusCode(), Map.of(), refused.getMessage());
      }
      listener.onError(error);
    }

    @Override
    public void onClose() {
      listener.onClose();
    }
  }

  /** {@code headers} with their names in lower case, as the gate's header parsing reads them. */
  private static Map<String, List<String>> lowerCase(Map<String, List<String>> headers) {
    Map<String, List<String>> lower = new LinkedHashMap<>();
    if (headers != null) {
      headers.forEach((name, values) -> lower.put(name.toLowerCase(Locale.ROOT), values));
    }
    return lower;
  }
}
