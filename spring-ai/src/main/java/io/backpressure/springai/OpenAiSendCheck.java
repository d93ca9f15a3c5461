package io.backpressure.springai;

import io.backpressure.client.GatedCall;
import java.io.IOException;
import java.net.ProtocolException;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.openai.http.okhttp.OpenAiHttpClientBuilderCustomizer;
import org.springframework.ai.openai.http.okhttp.SpringAiOpenAiHttpClient;

/**
 * Spring AI's OpenAI client at the HTTP layer, for {@link BackpressureAdvisor}'s calls: an OkHttp
 * application interceptor on the thread that calls the model.
 *
 * <ul>
 *   <li><b>Send check.</b> At the last moment before a call's bytes leave, when OkHttp writes its
 *       body (after the connection is chosen or set up and the headers are written), it checks that
 *       the call is still in time for its admission ({@link GatedCall#beforeSend()}): a call that
 *       the advisor admitted but that gets there later than its gate's {@code sendWithin()} (a cold
 *       client's first calls take seconds to serialise, connect and set up) gives its grant back
 *       unused and asks the gate again, and its body is written once it is admitted again, so that
 *       calls admitted in different windows of the provider do not arrive in one. A call that is
 *       not admitted the second time is not sent: its connection is closed before the body, which
 *       the provider never reads, and the call fails as the advisor's first admission would
 *       (waiting up to its wait budget, or {@code DeferredException}).
 *   <li><b>Provider feedback.</b> Each answer's status and headers (and a refusal's body) go to the
 *       call's gate ({@link GatedCall#answered}): OpenAI's {@code x-ratelimit-remaining-*} and
 *       {@code x-ratelimit-reset-*} adjust its effective caps, a 429's {@code retry-after} holds
 *       the exhausted dimension for as long as the provider says. Spring AI's own {@code RateLimit}
 *       metadata is empty for this client, so the headers are read here. Off with the advisor's
 *       {@code providerFeedback(false)}.
 * </ul>
 *
 * <p>Spring AI's OpenAI auto-configuration applies every {@link OpenAiHttpClientBuilderCustomizer}
 * bean, and the Spring Boot starter declares this one; a model built by hand takes it with {@code
 * OpenAiChatModel.builder().httpClientBuilderCustomizer(new OpenAiSendCheck())}. Calls made outside
 * the advisor pass as they are. Stateless and thread-safe; needs {@code spring-ai-openai} on the
 * class path.
 */
public final class OpenAiSendCheck implements OpenAiHttpClientBuilderCustomizer {

  /** The most of a refusal's body read for its reason; the SDK still reads all of it. */
  private static final long REFUSAL_BODY_BYTES = 64 * 1024;

  @Override
  public void customize(SpringAiOpenAiHttpClient.Builder builder) {
    builder.interceptor(
        chain -> {
          Request request = chain.request();
          RequestBody body = request.body();
          Response response;
          if (body == null) {
            GatedCall.beforeSend();
            response = chain.proceed(request);
          } else {
            try {
              response =
                  chain.proceed(
                      request.newBuilder().method(request.method(), new Checked(body)).build());
            } catch (NotSent e) {
              throw e.refusal;
            }
          }
          GatedCall.answered(
              response.code(), response.headers().toMultimap(), refusalBody(response));
          return response;
        });
  }

  /** The body of an answer of 400 or more, read without consuming it; null for a success. */
  private static @Nullable String refusalBody(Response response) throws IOException {
    return response.code() < 400 ? null : response.peekBody(REFUSAL_BODY_BYTES).string();
  }

  /** {@code body}, written only once {@link GatedCall#beforeSend()} lets the call go. */
  private static final class Checked extends RequestBody {
    private final RequestBody body;

    Checked(RequestBody body) {
      this.body = body;
    }

    @Override
    public @Nullable MediaType contentType() {
      return body.contentType();
    }

    @Override
    public long contentLength() throws IOException {
      return body.contentLength();
    }

    @Override
    public boolean isOneShot() {
      return body.isOneShot();
    }

    @Override
    public void writeTo(BufferedSink sink) throws IOException {
      try {
        GatedCall.beforeSend();
      } catch (RuntimeException refusal) {
        throw new NotSent(refusal);
      }
      body.writeTo(sink);
    }
  }

  /**
   * The gate's refusal of a late call, on its way out of OkHttp, which closes the connection of an
   * exchange that throws; a {@link ProtocolException}, which OkHttp does not send again.
   */
  private static final class NotSent extends ProtocolException {
    private static final long serialVersionUID = 1L;

    final transient RuntimeException refusal;

    NotSent(RuntimeException refusal) {
      super("not sent: " + refusal.getMessage());
      this.refusal = refusal;
      initCause(refusal);
    }
  }
}
