package io.backpressure.gemini;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.client.ClientGate;
import io.backpressure.client.GateContext;
import io.backpressure.client.GatedTransport;
import io.backpressure.client.GatedTransport.AnswerView;
import io.backpressure.client.GatedTransport.RequestView;
import io.backpressure.client.GatedTransport.TappedBody;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.BufferedSource;
import okio.Okio;
import org.jspecify.annotations.Nullable;

/**
 * An OkHttp application interceptor with the gate in front: the google-genai client sends every
 * request through the {@code OkHttpClient} it is given ({@code ClientOptions.customHttpClient}),
 * and this interceptor, added to that client first, admits each {@code generateContent} and {@code
 * streamGenerateContent} before it goes on, taps its answer to release the grant with the usage,
 * and hands every answer (a refusal's body included) to the provider feedback. Other requests
 * (files, caches, {@code countTokens}) pass through. google-genai adds its own retry interceptor
 * after this one; {@link GatedGemini} turns its retries off, so that one admission is one request.
 *
 * <p>The SDK's timeout for a call ({@code HttpOptions.timeout}, the call's own or the client's,
 * which the SDK makes the OkHttp call's timeout) is its deadline for the answer at the gate, the
 * shortest of it, the caller's ({@code GateContext.withDeadline} or its header) and the client
 * builder's winning: a call whose turn would come after it ends with {@code ExpiredException} at
 * once and is not sent. Thread-safe.
 */
public final class GatedInterceptor implements Interceptor {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final MediaType APPLICATION_JSON = MediaType.get("application/json");

  private final GatedTransport<Request, Response> gated;

  public GatedInterceptor(ClientGate gate) {
    this.gated = new GatedTransport<>(Objects.requireNonNull(gate, "gate"), new Sdk());
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    try {
      return gated.execute(
          chain.request(),
          timeout(chain),
          request -> {
            try {
              return chain.proceed(request);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /**
   * The call's deadline at the gate: google-genai's {@code HttpOptions.timeout}, the call's own
   * ({@code GenerateContentConfig.httpOptions}) or else the client's, which the SDK sets as the
   * OkHttp call's timeout ({@code callTimeout}) of the call this interceptor runs in; without
   * either, the call timeout of the {@link GatedGemini#transport transport} if it has one; else
   * null.
   */
  private static @Nullable Duration timeout(Chain chain) {
    long nanos = chain.call().timeout().timeoutNanos();
    return nanos > 0 ? Duration.ofNanos(nanos) : null;
  }

  /** OkHttp's request and response types, as {@link GatedTransport} reads and changes them. */
  private static final class Sdk implements GatedTransport.Sdk<Request, Response> {
    @Override
    public RequestView request(Request request) {
      return new RequestView(
          request.method(),
          request.url().pathSegments(),
          request::headers,
          request.body() == null ? null : () -> wrappedBody(request));
    }

    /**
     * The body wrapped with what the path says: {@code {"model", "stream", "request"}}, for {@link
     * GeminiGenerate#read}.
     */
    private static byte[] wrappedBody(Request request) {
      List<String> segments = request.url().pathSegments();
      String method = segments.get(segments.size() - 1);
      boolean stream = method.endsWith(GeminiGenerate.STREAM);
      String model = method.substring(0, method.lastIndexOf(':'));
      ObjectNode wrapped = JSON.createObjectNode();
      wrapped.put("model", model);
      wrapped.put("stream", stream);
      try (Buffer buffer = new Buffer()) {
        Objects.requireNonNull(request.body()).writeTo(buffer);
        wrapped.set("request", JSON.readTree(buffer.readByteArray()));
        return JSON.writeValueAsBytes(wrapped);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public Request rewritten(Request request, byte @Nullable [] json) {
      Request.Builder builder = request.newBuilder();
      if (json != null) {
        builder.method(request.method(), RequestBody.create(json, APPLICATION_JSON));
      }
      for (String header : GateContext.HEADERS) {
        builder.removeHeader(header);
      }
      return builder.build();
    }

    @Override
    public AnswerView answer(Response response) {
      return new AnswerView(
          response.code(),
          response.headers().names(),
          response::headers,
          () -> {
            ResponseBody body = response.body();
            return body == null ? InputStream.nullInputStream() : body.byteStream();
          },
          response::close);
    }

    @Override
    public Response tapped(Response response, TappedBody body) {
      ResponseBody original = response.body();
      return response
          .newBuilder()
          .body(new TappedResponseBody(original == null ? null : original.contentType(), body))
          .build();
    }
  }

  /** The answer's body read through the tap; closing it releases the grant if reading did not. */
  private static final class TappedResponseBody extends ResponseBody {
    private final @Nullable MediaType contentType;
    private final TappedBody tapped;
    private @Nullable BufferedSource source;

    TappedResponseBody(@Nullable MediaType contentType, TappedBody tapped) {
      this.contentType = contentType;
      this.tapped = tapped;
    }

    @Override
    public @Nullable MediaType contentType() {
      return contentType;
    }

    @Override
    public long contentLength() {
      return -1;
    }

    @Override
    public synchronized BufferedSource source() {
      if (source == null) {
        source = Okio.buffer(Okio.source(tapped.get()));
      }
      return source;
    }

    @Override
    public void close() {
      tapped.close();
    }
  }
}
