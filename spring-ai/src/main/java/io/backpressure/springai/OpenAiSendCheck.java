package io.backpressure.springai;

import io.backpressure.client.GatedCall;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * Makes Spring AI's OpenAI client check, just before a call leaves, that it is still in time for
 * its admission ({@link GatedCall#beforeSend()}): a call that {@link BackpressureAdvisor} admitted
 * but that reaches the HTTP client later than its gate's {@code sendWithin()} (a cold client's
 * first calls take seconds to serialise and set up) gives its grant back unused and asks the gate
 * again before it is sent, so that calls admitted in different windows of the provider do not
 * arrive in one. The check is an OkHttp application interceptor, which runs on the thread that
 * calls the model, before a connection is chosen.
 *
 * <p>Spring AI's OpenAI auto-configuration applies every {@link OpenAiHttpClientBuilderCustomizer}
 * bean, and the Spring Boot starter declares this one; a model built by hand takes it with {@code
 * OpenAiChatModel.builder().httpClientBuilderCustomizer(new OpenAiSendCheck())}. A call that is not
 * admitted the second time fails as the advisor's first admission would (waiting up to its wait
 * budget, or {@code DeferredException}). Stateless and thread-safe; needs {@code spring-ai-openai}
 * on the class path.
 */
public final class OpenAiSendCheck implements OpenAiHttpClientBuilderCustomizer {

  @Override
  public void customize(SpringAiOpenAiHttpClient.Builder builder) {
    builder.interceptor(
        chain -> {
          GatedCall.beforeSend();
          return chain.proceed(chain.request());
        });
  }
}
