package io.backpressure.client;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The SDK-neutral part of a gated HTTP client: which requests are gated, admitting them before they
 * are sent, sending the gate's body without the gate's headers, and handing back the answer with
 * its body tapped so that the grant is released with the usage. Ungated requests pass through, with
 * the gate's headers removed. Each SDK module implements its SDK's transport (openai-java's and
 * anthropic-java's {@code HttpClient}, an OkHttp interceptor for google-genai) by giving this class
 * a {@link Sdk} view of that SDK's request and response types; {@link JsonBody} and {@link
 * TappedAnswer} carry the parts of those types that two SDKs of the same shape share.
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
    /** What the gate reads of a request. */
    RequestView request(Q request);

    /**
     * The request without the {@link GateContext#HEADERS gate's headers}, sending {@code json} as
     * its body unless that is null.
     */
    Q rewritten(Q request, byte @Nullable [] json);

    /** What the gate reads of an answer. */
    AnswerView answer(R response);

    /** The answer with its body read through {@code body} (see {@link TappedBody}). */
    R tapped(R response, TappedBody body);
  }

  /**
   * What the gate reads of a request.
   *
   * @param method the HTTP method, in upper case
   * @param pathSegments the request path's segments
   * @param header a request header's values, none when it is absent
   * @param body the body's bytes, read only when the request is gated; null when the request has no
   *     body (only requests with one are gated)
   */
  public record RequestView(
      String method,
      List<String> pathSegments,
      Function<String, List<String>> header,
      @Nullable Supplier<byte[]> body) {}

  /**
   * What the gate reads of an answer.
   *
   * @param status the status code
   * @param headerNames the header names
   * @param header a header's values
   * @param body the answer's own body stream
   * @param close closes the answer
   */
  public record AnswerView(
      int status,
      Iterable<String> headerNames,
      Function<String, List<String>> header,
      Supplier<InputStream> body,
      Runnable close) {}

  /**
   * The bytes an SDK's request body {@linkplain OutputStream writes to} a stream, for an SDK whose
   * body type writes itself.
   */
  public static byte[] written(Consumer<OutputStream> body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    body.accept(out);
    return out.toByteArray();
  }

  private final ClientGate gate;
  private final Sdk<Q, R> sdk;

  public GatedTransport(ClientGate gate, Sdk<Q, R> sdk) {
    this.gate = Objects.requireNonNull(gate, "gate");
    this.sdk = Objects.requireNonNull(sdk, "sdk");
  }

  /**
   * Sends {@code request} through {@code send} on the calling thread, admitted first when it is
   * gated. An answer of 429, or one that says a spend limit or a daily quota is reached, is not
   * handed back when the feedback tells the gate ({@link ProviderFeedback#tellsTheGate()}, the
   * default): it goes to the feedback, its grant is released, and the call asks the gate again,
   * which defers it until the provider's retry-after (the admitter then throws, waits or expires
   * it), refuses it until a stop's reset (the admitter throws {@link RejectedException}), or admits
   * it and sends it again. Asking again, the call presents no booking: the one it came with (its
   * header or context) was redeemed by its first admission.
   *
   * @throws NotAdmittedException outside Temporal, when the gate does not admit the call (nothing
   *     more was sent)
   */
  public R execute(Q request, Function<Q, R> send) {
    return execute(request, null, send);
  }

  /**
   * As {@link #execute(Object, Function)}, for a request the SDK sends with a timeout of its own
   * (openai-java's and anthropic-java's {@code RequestOptions.timeout}): the timeout is a deadline
   * for the call's answer ({@link ClientGate#admit(byte[], Function, Duration)}, where the shortest
   * deadline wins), and every admission after a 429 carries what is left of it.
   *
   * @param timeout the SDK's timeout for this request, or null (or zero) when it has none
   */
  public R execute(Q request, @Nullable Duration timeout, Function<Q, R> send) {
    RequestView view = sdk.request(request);
    if (!gated(view)) {
      return send.apply(withoutGateHeaders(request, view));
    }
    Exchange exchange = gate.inTime(admit(view, timeout));
    for (int resends = 0; ; resends++) {
      R response;
      try {
        response = send.apply(sdk.rewritten(request, exchange.body()));
      } catch (RuntimeException | Error e) {
        exchange.failed(e);
        throw e;
      }
      R answer = answerOrAskAgain(exchange, response, resends);
      if (answer != null) {
        return answer;
      }
      exchange = gate.inTime(gate.again(exchange));
    }
  }

  /**
   * As {@link #execute}, for an asynchronous send; a refusal completes the future exceptionally.
   * The admission runs on the thread that calls this (and, after a 429, on the thread that
   * completed the answer), so pair an asynchronous client with {@link Admitter#direct()}.
   */
  public CompletableFuture<R> executeAsync(Q request, Function<Q, CompletableFuture<R>> send) {
    return executeAsync(request, null, send);
  }

  /**
   * As {@link #executeAsync(Object, Function)}, with the SDK's timeout for this request as the
   * call's deadline, as {@link #execute(Object, Duration, Function)} takes it.
   *
   * @param timeout the SDK's timeout for this request, or null (or zero) when it has none
   */
  public CompletableFuture<R> executeAsync(
      Q request, @Nullable Duration timeout, Function<Q, CompletableFuture<R>> send) {
    RequestView view = sdk.request(request);
    if (!gated(view)) {
      return send.apply(withoutGateHeaders(request, view));
    }
    return sendAsync(request, () -> admit(view, timeout), send, 0);
  }

  /**
   * Admits the call through {@code admission} and sends it; after a 429, does the same with {@link
   * ClientGate#again}.
   */
  private CompletableFuture<R> sendAsync(
      Q request,
      Supplier<Exchange> admission,
      Function<Q, CompletableFuture<R>> send,
      int resends) {
    Exchange exchange;
    try {
      exchange = gate.inTime(admission.get());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<R> sent;
    try {
      sent = send.apply(sdk.rewritten(request, exchange.body()));
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
                  R handed = answerOrAskAgain(exchange, response, resends);
                  return handed == null
                      ? sendAsync(request, () -> gate.again(exchange), send, resends + 1)
                      : CompletableFuture.completedFuture(handed);
                })
            .thenCompose(next -> next);
    return answer;
  }

  /**
   * The answer to hand the SDK, reported first to the feedback (an answer of 400 or more with its
   * body, which the SDK then reads unchanged); or null when the call is to ask the gate again
   * instead ({@link ClientGate#resends}: a 429 or a stop, heard by a feedback that tells the gate,
   * fewer than {@link ClientGate#MAX_RESENDS_AFTER_429} resends made). Then the answer has been
   * reported (its grant released) and closed, and the gate, told, defers the call until the
   * retry-after or refuses it with the reset instant, so the caller meets a stop as the gate's
   * terminal refusal on the first call that hits it, as on every later one.
   */
  private @Nullable R answerOrAskAgain(Exchange exchange, R response, int resends) {
    AnswerView answer = sdk.answer(response);
    Map<String, List<String>> headers = headers(answer);
    int status = answer.status();
    if (status < 400) {
      exchange.answered(status, headers);
      return sdk.tapped(response, new TappedBody(answer.body(), answer.close(), exchange));
    }
    // A refusal's body says why (the Gemini API and Bedrock say nothing else): read it for the
    // feedback, and hand the SDK the same bytes.
    byte[] refusal = errorBody(answer.body().get());
    String text = new String(refusal, StandardCharsets.UTF_8);
    exchange.answered(status, headers, text);
    if (gate.resends(status, headers, text, resends)) {
      answer.close().run();
      return null;
    }
    return sdk.tapped(
        response,
        new TappedBody(() -> new ByteArrayInputStream(refusal), answer.close(), exchange));
  }

  private boolean gated(RequestView request) {
    return request.body() != null && gate.gates(request.method(), request.pathSegments());
  }

  /** The request as it is, unless it carries one of the gate's headers. */
  private Q withoutGateHeaders(Q request, RequestView view) {
    for (String header : GateContext.HEADERS) {
      if (!view.header().apply(header).isEmpty()) {
        return sdk.rewritten(request, null);
      }
    }
    return request;
  }

  private Exchange admit(RequestView request, @Nullable Duration timeout) {
    return gate.admit(
        Objects.requireNonNull(request.body()).get(),
        name -> {
          List<String> values = request.header().apply(name);
          return values.isEmpty() ? null : values.get(0);
        },
        timeout);
  }

  private static Map<String, List<String>> headers(AnswerView answer) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (String name : answer.headerNames()) {
      headers.put(name.toLowerCase(Locale.ROOT), answer.header().apply(name));
    }
    return headers;
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

  /**
   * A JSON request body: the bytes, {@code application/json}, repeatable. For SDKs whose request
   * body interface has these methods (openai-java's and anthropic-java's {@code HttpRequestBody}):
   * their modules subclass this with that interface added.
   */
  public static class JsonBody {
    private final byte[] json;

    /** A body of {@code json}, which is not copied: do not change it afterwards. */
    protected JsonBody(byte[] json) {
      this.json = json;
    }

    public void writeTo(OutputStream out) {
      try {
        out.write(json);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    public String contentType() {
      return "application/json";
    }

    public long contentLength() {
      return json.length;
    }

    public boolean repeatable() {
      return true;
    }

    public void close() {}
  }

  /**
   * An answer whose body is read through a {@link TappedBody}: its status, its tapped body, and
   * closing it through the tap. For SDKs whose response interface has these methods (openai-java's
   * and anthropic-java's {@code HttpResponse}): their modules subclass this with that interface
   * added and the SDK's own headers.
   */
  public static class TappedAnswer {
    private final int status;
    private final TappedBody body;

    /** The answer of {@code status} whose body is read through {@code body}. */
    protected TappedAnswer(int status, TappedBody body) {
      this.status = status;
      this.body = body;
    }

    public int statusCode() {
      return status;
    }

    public InputStream body() {
      return body.get();
    }

    /** Closes the tapped body (releasing the grant if reading did not), then the answer. */
    public void close() {
      body.close();
    }
  }
}
