package io.backpressure.mock;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * One request and its answer on the Jetty server: reading the body without holding a thread,
 * writing JSON answers and server-sent events. The request is finished exactly once, by {@link
 * #sendJson}, by the last {@link #writeEvents} or by {@link #abort}.
 *
 * <p>Not thread-safe: one exchange is driven by one task at a time (the handler, then the task that
 * completes the body read, then the scheduler tasks that write the answer).
 */
final class Exchange {

  /** Snake-case JSON, the wire style of both providers and of the records endpoint. */
  static final ObjectMapper JSON =
      new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

  /**
   * How much of an oversized body is read and thrown away before the 413 is sent, so that a client
   * still sending sees the answer rather than a reset connection; beyond this the connection is
   * closed after the answer.
   */
  private static final long DISCARD_LIMIT = 64L * 1024 * 1024;

  private final Request request;
  private final Response response;
  private final Callback done;

  Exchange(Request request, Response response, Callback done) {
    this.request = request;
    this.response = response;
    this.done = done;
  }

  /** The decoded path, without the query. */
  String path() {
    return Request.getPathInContext(request);
  }

  String method() {
    return request.getMethod();
  }

  /** The raw query string, or {@code null}. */
  String query() {
    return request.getHttpURI().getQuery();
  }

  /** The first value of the request header {@code name}, or {@code null}. */
  String header(String name) {
    return request.getHeaders().get(name);
  }

  /** Whether the client connected from a loopback address. */
  boolean fromLoopback() {
    return request.getConnectionMetaData().getRemoteSocketAddress()
            instanceof InetSocketAddress remote
        && remote.getAddress() != null
        && remote.getAddress().isLoopbackAddress();
  }

  /** The response headers, to set before the answer is sent. */
  HttpFields.Mutable responseHeaders() {
    return response.getHeaders();
  }

  /**
   * Reads the whole body, at most {@code maxBytes}, without blocking a thread, then calls {@code
   * then} with the body or the reason it could not be had: a 413 when it is longer (said by its
   * {@code Content-Length} at once, else as soon as the excess arrives), a 400 when it ends early
   * or stalls past the connection's idle timeout.
   */
  void readBody(int maxBytes, BiConsumer<byte[], BadRequestException> then) {
    long declared = request.getLength();
    if (declared > maxBytes) {
      discard(DISCARD_LIMIT, () -> then.accept(null, tooLarge(maxBytes)));
      return;
    }
    Content.Source.asByteArrayAsync(
        request,
        maxBytes,
        Promise.Invocable.from(
            Invocable.InvocationType.NON_BLOCKING,
            (byte[] body, Throwable failure) -> {
              if (failure == null) {
                then.accept(body, null);
              } else if (failure instanceof IllegalStateException) {
                // Jetty's "Max size (N) exceeded", for a chunked body
                discard(DISCARD_LIMIT, () -> then.accept(null, tooLarge(maxBytes)));
              } else {
                then.accept(
                    null,
                    new BadRequestException(
                        "Request body incomplete: "
                            + (declared >= 0
                                ? "it ended before the " + declared + " bytes it declared"
                                : "it ended early")
                            + " ("
                            + failure.getClass().getSimpleName()
                            + ").",
                        null,
                        "incomplete_body"));
              }
            }));
  }

  /**
   * Reads and drops what is left of the body, up to {@code budget} bytes, then runs {@code then};
   * waits for the client's bytes without holding a thread.
   */
  private void discard(long budget, Runnable then) {
    long left = budget;
    while (true) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        long rest = left;
        request.demand(() -> discard(rest, then));
        return;
      }
      left -= chunk.remaining();
      chunk.release();
      if (chunk.isLast() || Content.Chunk.isFailure(chunk) || left < 0) {
        then.run();
        return;
      }
    }
  }

  private static BadRequestException tooLarge(int maxBytes) {
    return new BadRequestException(
        "Request body too large: the limit is " + maxBytes + " bytes.",
        null,
        "request_too_large",
        413);
  }

  /**
   * Lengthens the connection's idle timeout by {@code nanos} until this exchange is finished: the
   * server is about to be silent that long on purpose (the simulated latency, whole or between the
   * events of a stream), which must not count against the client. As Jetty's own {@code
   * IdleTimeoutHandler} does, the timeout is set back when the exchange completes.
   */
  void allowSilence(long nanos) {
    EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
    long configured = endPoint.getIdleTimeout();
    endPoint.setIdleTimeout(configured + TimeUnit.NANOSECONDS.toMillis(nanos) + 1);
    Request.addCompletionListener(request, failure -> endPoint.setIdleTimeout(configured));
  }

  /** Sends {@code body} as JSON with {@code status} and finishes the exchange. */
  void sendJson(int status, Object body) {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      abort(e);
      return;
    }
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
    response.write(true, ByteBuffer.wrap(bytes), done);
  }

  /**
   * Starts a 200 answer of events (server-sent events, or another framing named by {@code
   * contentType}); the headers go out with the first write.
   */
  void startEvents(String contentType) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
  }

  /**
   * Writes {@code events} (already framed for the wire) and calls {@code then} once they are
   * written, with the failure if the client went away. With {@code last} the exchange is finished
   * after the write.
   */
  void writeEvents(byte[] events, boolean last, Callback then) {
    ByteBuffer bytes = ByteBuffer.wrap(events);
    Callback after =
        last
            ? Callback.from(
                () -> {
                  done.succeeded();
                  then.succeeded();
                },
                failure -> {
                  done.failed(failure);
                  then.failed(failure);
                })
            : then;
    response.write(last, bytes, after);
  }

  /** Ends the exchange without (the rest of) an answer; the connection is closed. */
  void abort(Throwable cause) {
    done.failed(cause);
  }

  /**
   * Runs the next step of the answer on {@code scheduler} after {@code delayNanos}. A step that
   * throws is handed to {@code onFailure}, which must end the exchange, so that the client sees its
   * connection fail rather than wait for its own timeout.
   *
   * @throws java.util.concurrent.RejectedExecutionException when the scheduler is shut down
   */
  static void later(
      ScheduledExecutorService scheduler,
      long delayNanos,
      Runnable step,
      Consumer<RuntimeException> onFailure) {
    // The task hands its own failure on, so its future has nothing left to report.
    Future<?> unused =
        scheduler.schedule(
            () -> {
              try {
                step.run();
              } catch (RuntimeException e) {
                onFailure.accept(e);
              }
            },
            delayNanos,
            TimeUnit.NANOSECONDS);
  }
}
