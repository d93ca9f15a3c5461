package io.backpressure.client;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The SDK-neutral part of a gated HTTP client: which requests are gated, admitting them before they
 * are sent, sending the gate's body without the gate's headers, and handing back the answer with
 * its body tapped so that the grant is released with the usage. Ungated requests pass through, with
 * the gate's headers removed. Each SDK module (openai-java, anthropic-java) implements its SDK's
 * {@code HttpClient} by giving this class a {@link Sdk} view of that SDK's request and response
 * types.
 *
 * <p>Thread-safe; one instance serves every request of its client.
 *
 * @param <Q> the SDK's request type
 * @param <R> the SDK's response type
 */
public final class GatedTransport<Q, R> {

  /**
   * How one SDK's request and response types read and change; stateless, so safe to use from any
   * thread.
   */
  public interface Sdk<Q, R> {
    /** Whether the request has a body (only requests with one are gated). */
    boolean hasBody(Q request);

    /** The request body's bytes. */
    byte[] requestBody(Q request);

    /** The HTTP method, in upper case. */
    String method(Q request);

    /** The request path's segments. */
    List<String> pathSegments(Q request);

    /** The request header's values, none when it is absent. */
    List<String> requestHeader(Q request, String name);

    /** The request without the {@link GateContext#HEADERS gate's headers}. */
    Q withoutGateHeaders(Q request);

    /** The request without the gate's headers, sending {@code json} as its body. */
    Q withJsonBody(Q request, byte[] json);

    /** The answer's status code. */
    int statusCode(R response);

    /** The answer's header names. */
    Iterable<String> headerNames(R response);

    /** The answer header's values. */
    List<String> answerHeader(R response, String name);

    /** The answer with its body read through {@code body} (see {@link TappedBody}). */
    R tapped(R response, TappedBody body);

    /** The answer's own body stream. */
    InputStream answerBody(R response);

    /** Closes the answer. */
    void close(R response);
  }

  private final ClientGate gate;
  private final Sdk<Q, R> sdk;

  public GatedTransport(ClientGate gate, Sdk<Q, R> sdk) {
    this.gate = Objects.requireNonNull(gate, "gate");
    this.sdk = Objects.requireNonNull(sdk, "sdk");
  }

  /**
   * How many 429 answers in a row one call is sent again through the gate before the last is handed
   * to the SDK; with provider feedback on (the default) the gate defers the call until the
   * provider's retry-after instead, so this bounds only a gate that does not hear the provider.
   */
  static final int MAX_RESENDS_AFTER_429 = 3;

  /**
   * Sends {@code request} through {@code send} on the calling thread, admitted first when it is
   * gated. An answer of 429 is not handed back when the feedback tells the gate ({@link
   * ProviderFeedback#tellsTheGate()}, the default): it goes to the feedback, its grant is released,
   * and the call asks the gate again, which defers it until the provider's retry-after (the
   * admitter then throws, waits or expires it) or admits it and sends it again.
   *
   * @throws NotAdmittedException outside Temporal, when the gate does not admit the call (nothing
   *     more was sent)
   */
  public R execute(Q request, Function<Q, R> send) {
    if (!gated(request)) {
      return send.apply(sdk.withoutGateHeaders(request));
    }
    for (int resends = 0; ; resends++) {
      Exchange exchange = admit(request);
      R response;
      try {
        response = send.apply(sdk.withJsonBody(request, exchange.body()));
      } catch (RuntimeException | Error e) {
        exchange.failed(e);
        throw e;
      }
      if (!throttled(exchange, response, resends)) {
        return tapped(exchange, response);
      }
    }
  }

  /**
   * As {@link #execute}, for an asynchronous send; a refusal completes the future exceptionally.
   * The admission runs on the thread that calls this (and, after a 429, on the thread that
   * completed the answer), so pair an asynchronous client with {@link Admitter#direct()}.
   */
  public CompletableFuture<R> executeAsync(Q request, Function<Q, CompletableFuture<R>> send) {
    if (!gated(request)) {
      return send.apply(sdk.withoutGateHeaders(request));
    }
    return sendAsync(request, send, 0);
  }

  private CompletableFuture<R> sendAsync(
      Q request, Function<Q, CompletableFuture<R>> send, int resends) {
    Exchange exchange;
    try {
      exchange = admit(request);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<R> sent;
    try {
      sent = send.apply(sdk.withJsonBody(request, exchange.body()));
    } catch (RuntimeException | Error e) {
      exchange.failed(e);
      throw e;
    }
    @SuppressWarnings("FutureReturnValueIgnored") // handle's nested future is composed just below
    CompletableFuture<R> answer =
        sent.handle(
                (response, failure) -> {
                  if (failure != null) {
                    exchange.failed(failure);
                    throw failure instanceof RuntimeException r
                        ? r
                        : new CompletionException(failure);
                  }
                  return throttled(exchange, response, resends)
                      ? sendAsync(request, send, resends + 1)
                      : CompletableFuture.completedFuture(tapped(exchange, response));
                })
            .thenCompose(next -> next);
    return answer;
  }

  /**
   * Whether {@code response} is a 429 to ask the gate again about: then it has been reported (the
   * feedback hears it, the grant is released) and closed.
   */
  private boolean throttled(Exchange exchange, R response, int resends) {
    if (sdk.statusCode(response) != 429
        || resends >= MAX_RESENDS_AFTER_429
        || !gate.feedback().tellsTheGate()) {
      return false;
    }
    byte[] refusal = errorBody(sdk.answerBody(response));
    exchange.answered(
        sdk.statusCode(response), headers(response), new String(refusal, StandardCharsets.UTF_8));
    sdk.close(response);
    return true;
  }

  private boolean gated(Q request) {
    return sdk.hasBody(request) && gate.gates(sdk.method(request), sdk.pathSegments(request));
  }

  private Exchange admit(Q request) {
    return gate.admit(
        sdk.requestBody(request),
        name -> {
          List<String> values = sdk.requestHeader(request, name);
          return values.isEmpty() ? null : values.get(0);
        });
  }

  private Map<String, List<String>> headers(R response) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String name : sdk.headerNames(response)) {
      headers.put(name.toLowerCase(Locale.ROOT), sdk.answerHeader(response, name));
    }
    return headers;
  }

  private R tapped(Exchange exchange, R response) {
    Map<String, List<String>> headers = headers(response);
    int status = sdk.statusCode(response);
    if (status < 400) {
      exchange.answered(status, headers);
      return sdk.tapped(
          response,
          new TappedBody(() -> sdk.answerBody(response), () -> sdk.close(response), exchange));
    }
    // A refusal's body says why (the Gemini API and Bedrock say nothing else): read it for the
    // feedback, and hand the SDK the same bytes.
    byte[] refusal = errorBody(sdk.answerBody(response));
    exchange.answered(status, headers, new String(refusal, StandardCharsets.UTF_8));
    return sdk.tapped(
        response,
        new TappedBody(
            () -> new ByteArrayInputStream(refusal), () -> sdk.close(response), exchange));
  }

  /** An error answer's whole body; what was read when reading it fails. */
  private static byte[] errorBody(@Nullable InputStream body) {
    if (body == null) {
      return new byte[0];
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      for (int n; (n = body.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      // the bytes read so far are what the SDK and the feedback see
    }
    return out.toByteArray();
  }

  /**
   * An answer's body, tapped on first read so that reading it to its end (or closing it) releases
   * the grant with the usage. Thread-safe.
   */
  public static final class TappedBody {
    private final Supplier<InputStream> raw;
    private final Runnable closeResponse;
    private final Exchange exchange;
    private @Nullable InputStream body;

    TappedBody(Supplier<InputStream> raw, Runnable closeResponse, Exchange exchange) {
      this.raw = raw;
      this.closeResponse = closeResponse;
      this.exchange = exchange;
    }

    /** The tapped body; the same stream on every call. */
    public synchronized InputStream get() {
      if (body == null) {
        body = exchange.tap(raw.get());
      }
      return body;
    }

    /** Closes the tapped body (releasing the grant if reading did not), then the answer. */
    public void close() {
      try {
        get().close();
      } catch (IOException e) {
        // the tap has released the grant; the answer's close below reports nothing either
      } finally {
        closeResponse.run();
      }
    }
  }
}
