package io.backpressure.anthropic;

import com.anthropic.core.RequestOptions;
import com.anthropic.core.http.Headers;
import com.anthropic.core.http.HttpClient;
import com.anthropic.core.http.HttpRequest;
import com.anthropic.core.http.HttpRequestBody;
import com.anthropic.core.http.HttpResponse;
import io.backpressure.client.ClientGate;
import io.backpressure.client.Exchange;
import io.backpressure.client.GateContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * anthropic-java's HTTP client with the gate in front: installed by {@link
 * GatedAnthropic#interceptor()} around the {@link HttpClient} the SDK sends through. Requests to
 * gated endpoints are admitted by the {@link ClientGate} before they are sent, and their answers'
 * bodies are tapped to release the grant with the usage; every other request passes through
 * unchanged. Thread-safe.
 */
public final class GatedHttpClient implements HttpClient {

  private final HttpClient transport;
  private final ClientGate gate;

  public GatedHttpClient(HttpClient transport, ClientGate gate) {
    this.transport = Objects.requireNonNull(transport, "transport");
    this.gate = Objects.requireNonNull(gate, "gate");
  }

  @Override
  public HttpResponse execute(HttpRequest request, RequestOptions options) {
    if (!gated(request)) {
      return transport.execute(withoutGateHeaders(request), options);
    }
    Exchange exchange = gate.admit(bytes(request.body().get()), name -> first(request, name));
    HttpResponse response;
    try {
      response = transport.execute(withBody(request, exchange.body()), options);
    } catch (RuntimeException | Error e) {
      exchange.failed(e);
      throw e;
    }
    return tapped(exchange, response);
  }

  @Override
  public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
    if (!gated(request)) {
      return transport.executeAsync(withoutGateHeaders(request), options);
    }
    Exchange exchange;
    try {
      exchange = gate.admit(bytes(request.body().get()), name -> first(request, name));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<HttpResponse> sent;
    try {
      sent = transport.executeAsync(withBody(request, exchange.body()), options);
    } catch (RuntimeException | Error e) {
      exchange.failed(e);
      throw e;
    }
    return sent.handle(
        (response, failure) -> {
          if (failure != null) {
            exchange.failed(failure);
            throw failure instanceof RuntimeException r ? r : new CompletionException(failure);
          }
          return tapped(exchange, response);
        });
  }

  @Override
  public void close() {
    transport.close();
  }

  private boolean gated(HttpRequest request) {
    return request.body().isPresent() && gate.gates(request.method().name(), request.pathSegments());
  }

  private static HttpResponse tapped(Exchange exchange, HttpResponse response) {
    exchange.answered(response.statusCode(), headers(response.headers()));
    return new TappedResponse(response, exchange);
  }

  private static Map<String, List<String>> headers(Headers headers) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (String name : headers.names()) {
      map.put(name.toLowerCase(Locale.ROOT), headers.values(name));
    }
    return map;
  }

  private static byte[] bytes(HttpRequestBody body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    body.writeTo(out);
    return out.toByteArray();
  }

  private static String first(HttpRequest request, String header) {
    List<String> values = request.headers().values(header);
    return values.isEmpty() ? null : values.get(0);
  }

  /** An ungated request as it should leave: the gate's headers stay here. */
  private static HttpRequest withoutGateHeaders(HttpRequest request) {
    for (String header : GateContext.HEADERS) {
      if (!request.headers().values(header).isEmpty()) {
        return request.toBuilder().removeAllHeaders(GateContext.HEADERS).build();
      }
    }
    return request;
  }

  /** The request to send: the gate's body, without the gate's own headers. */
  private static HttpRequest withBody(HttpRequest request, byte[] body) {
    return request.toBuilder().removeAllHeaders(GateContext.HEADERS).body(new JsonBody(body)).build();
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
  private static final class TappedResponse implements HttpResponse {
    private final HttpResponse response;
    private final Exchange exchange;
    private InputStream body;

    TappedResponse(HttpResponse response, Exchange exchange) {
      this.response = response;
      this.exchange = exchange;
    }

    @Override
    public int statusCode() {
      return response.statusCode();
    }

    @Override
    public Headers headers() {
      return response.headers();
    }

    @Override
    public synchronized InputStream body() {
      if (body == null) {
        body = exchange.tap(response.body());
      }
      return body;
    }

    @Override
    public void close() {
      try {
        body().close();
      } catch (IOException e) {
        // the tap has released the grant; the transport's close below reports nothing either
      } finally {
        response.close();
      }
    }
  }
}
