package io.backpressure.openai;

import com.openai.core.RequestOptions;
import com.openai.core.Timeout;
import com.openai.core.http.Headers;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpRequestBody;
import com.openai.core.http.HttpResponse;
import io.backpressure.client.ClientGate;
import io.backpressure.client.GateContext;
import io.backpressure.client.GatedTransport;
import io.backpressure.client.GatedTransport.AnswerView;
import io.backpressure.client.GatedTransport.RequestView;
import io.backpressure.client.GatedTransport.TappedAnswer;
import io.backpressure.client.GatedTransport.TappedBody;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * openai-java's HTTP client with the gate in front: the {@link HttpClient} the SDK sends through
 * (set with {@code ClientOptions.Builder.httpClient}), wrapping the transport it would use
 * otherwise ({@code OkHttpClient}). Requests to gated endpoints are admitted by the {@link
 * ClientGate} before they are sent, and their answers' bodies are tapped to release the grant with
 * the usage; every other request passes through unchanged. See {@link GatedOpenAI} for the usual
 * way to build one.
 *
 * <p>The SDK's timeout for a request ({@code Timeout.request()} of the {@code RequestOptions} it
 * hands this client) is the call's deadline for its answer at the gate, the shortest of it, the
 * caller's ({@code GateContext.withDeadline} or its header) and the client builder's winning: a
 * call whose turn would come after it ends with {@code ExpiredException} at once and is not sent,
 * instead of being deferred past the moment its caller gives up. Thread-safe.
 */
public final class GatedHttpClient implements HttpClient {

  private final HttpClient transport;
  private final GatedTransport<HttpRequest, HttpResponse> gated;

  public GatedHttpClient(HttpClient transport, ClientGate gate) {
    this.transport = Objects.requireNonNull(transport, "transport");
    this.gated = new GatedTransport<>(Objects.requireNonNull(gate, "gate"), new Sdk());
  }

  @Override
  public HttpResponse execute(HttpRequest request, RequestOptions options) {
    return gated.execute(request, timeout(options), r -> transport.execute(r, options));
  }

  @Override
  public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
    return gated.executeAsync(request, timeout(options), r -> transport.executeAsync(r, options));
  }

  @Override
  public void close() {
    transport.close();
  }

  /**
   * The call's deadline at the gate: the SDK's timeout for the whole HTTP call ({@code
   * Timeout.request()}: the client's {@code timeout} or the call's {@code RequestOptions}, ten
   * minutes unless set), or null when the options carry no timeout. Zero, the SDK's "no timeout",
   * is no deadline ({@link GatedTransport#execute(Object, Duration, java.util.function.Function)}).
   */
  private static @Nullable Duration timeout(RequestOptions options) {
    Timeout timeout = options.getTimeout();
    return timeout == null ? null : timeout.request();
  }

  /** openai-java's request and response types, as {@link GatedTransport} reads and changes them. */
  private static final class Sdk implements GatedTransport.Sdk<HttpRequest, HttpResponse> {
    @Override
    public RequestView request(HttpRequest request) {
      HttpRequestBody body = request.body();
      return new RequestView(
          request.method().name(),
          request.pathSegments(),
          request.headers()::values,
          body == null ? null : () -> GatedTransport.written(body::writeTo));
    }

    @Override
    public HttpRequest rewritten(HttpRequest request, byte @Nullable [] json) {
      HttpRequest.Builder builder = request.toBuilder().removeAllHeaders(GateContext.HEADERS);
      return json == null ? builder.build() : builder.body(new JsonBody(json)).build();
    }

    @Override
    public AnswerView answer(HttpResponse response) {
      Headers headers = response.headers();
      return new AnswerView(
          response.statusCode(), headers.names(), headers::values, response::body, response::close);
    }

    @Override
    public HttpResponse tapped(HttpResponse response, TappedBody body) {
      return new TappedResponse(response, body);
    }
  }

  /** The (possibly adjusted) JSON body, sent as bytes. */
  private static final class JsonBody extends GatedTransport.JsonBody implements HttpRequestBody {
    JsonBody(byte[] json) {
      super(json);
    }
  }

  /** The answer with its body tapped; closing it releases the grant if the body did not. */
  private static final class TappedResponse extends TappedAnswer implements HttpResponse {
    private final Headers headers;

    TappedResponse(HttpResponse response, TappedBody body) {
      super(response.statusCode(), body);
      this.headers = response.headers();
    }

    @Override
    public Headers headers() {
      return headers;
    }
  }
}
