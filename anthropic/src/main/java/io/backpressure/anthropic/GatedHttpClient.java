package io.backpressure.anthropic;

import com.anthropic.core.RequestOptions;
import com.anthropic.core.http.Headers;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.HttpRequestBody;
import com.anthropic.core.http.HttpResponse;
import io.backpressure.client.ClientGate;
import io.backpressure.client.GateContext;
import io.backpressure.client.GatedTransport;
import io.backpressure.client.GatedTransport.TappedBody;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * anthropic-java's HTTP client with the gate in front: installed by {@link
 * GatedAnthropic#interceptor()} around the {@link HttpClient} the SDK sends through. Requests to
 * gated endpoints are admitted by the {@link ClientGate} before they are sent, and their answers'
 * bodies are tapped to release the grant with the usage; every other request passes through
 * unchanged. Thread-safe.
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
    return gated.execute(request, r -> transport.execute(r, options));
  }

  @Override
  public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
    return gated.executeAsync(request, r -> transport.executeAsync(r, options));
  }

  @Override
  public void close() {
    transport.close();
  }

  /**
   * anthropic-java's request and response types, as {@link GatedTransport} reads and changes them.
   */
  private static final class Sdk implements GatedTransport.Sdk<HttpRequest, HttpResponse> {
    @Override
    public boolean hasBody(HttpRequest request) {
      return request.body().isPresent();
    }

    @Override
    public byte[] requestBody(HttpRequest request) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      request.body().get().writeTo(out);
      return out.toByteArray();
    }

    @Override
    public String method(HttpRequest request) {
      return request.method().name();
    }

    @Override
    public List<String> pathSegments(HttpRequest request) {
      return request.pathSegments();
    }

    @Override
    public List<String> requestHeader(HttpRequest request, String name) {
      return request.headers().values(name);
    }

    @Override
    public HttpRequest withoutGateHeaders(HttpRequest request) {
      for (String header : GateContext.HEADERS) {
        if (!request.headers().values(header).isEmpty()) {
          return request.toBuilder().removeAllHeaders(GateContext.HEADERS).build();
        }
      }
      return request;
    }

    @Override
    public HttpRequest withJsonBody(HttpRequest request, byte[] json) {
      return request.toBuilder()
          .removeAllHeaders(GateContext.HEADERS)
          .body(new JsonBody(json))
          .build();
    }

    @Override
    public int statusCode(HttpResponse response) {
      return response.statusCode();
    }

    @Override
    public Iterable<String> headerNames(HttpResponse response) {
      return response.headers().names();
    }

    @Override
    public List<String> answerHeader(HttpResponse response, String name) {
      return response.headers().values(name);
    }

    @Override
    public HttpResponse tapped(HttpResponse response, TappedBody body) {
      return new TappedResponse(response, body);
    }

    @Override
    public InputStream answerBody(HttpResponse response) {
      return response.body();
    }

    @Override
    public void close(HttpResponse response) {
      response.close();
    }
  }

  /** The (possibly adjusted) JSON body, sent as bytes. */
  private record JsonBody(byte[] bytes) implements HttpRequestBody {
    @Override
    public void writeTo(OutputStream out) {
      try {
        out.write(bytes);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public String contentType() {
      return "application/json";
    }

    @Override
    public long contentLength() {
      return bytes.length;
    }

    @Override
    public boolean repeatable() {
      return true;
    }

    @Override
    public void close() {}
  }

  /** The answer with its body tapped; closing it releases the grant if the body did not. */
  private record TappedResponse(HttpResponse response, TappedBody tapped) implements HttpResponse {
    @Override
    public int statusCode() {
      return response.statusCode();
    }

    @Override
    public Headers headers() {
      return response.headers();
    }

    @Override
    public InputStream body() {
      return tapped.get();
    }

    @Override
    public void close() {
      tapped.close();
    }
  }
}
