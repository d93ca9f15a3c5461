package io.backpressure.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.Grant;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One admitted call, from sending its body to releasing its grant. The HTTP adapter sends {@link
 * #body()}, reports the answer with {@link #answered}, and hands the SDK {@link #tap(InputStream)
 * the tapped body}; or reports a transport failure with {@link #failed}. The grant is released
 * exactly once, whichever happens first, from whichever thread.
 */
public final class Exchange {

  private static final Logger log = LoggerFactory.getLogger(Exchange.class);

  private final ClientGate clientGate;
  private final Gate gate;
  private final AdmissionRequest request;
  private final Grant grant;
  private final ProviderCall call;
  private final byte[] body;
  private final AtomicBoolean released = new AtomicBoolean();
  private final long admittedAt;
  private final long deadlineAt;
  private volatile boolean succeeded;

  Exchange(
      ClientGate clientGate,
      Gate gate,
      AdmissionRequest request,
      Grant grant,
      ProviderCall call,
      byte[] body,
      long deadlineAt) {
    this.clientGate = clientGate;
    this.deadlineAt = deadlineAt;
    this.gate = gate;
    this.request = request;
    this.admittedAt = clientGate.ticker().nanoTime();
    this.grant = grant;
    this.call = call;
    this.body = body;
  }

  /** The request body to send (the caller's, or the dialect's adjusted copy). */
  public byte[] body() {
    return body;
  }

  /**
   * Whether the call is being sent later after its admission than its gate's {@link
   * Gate#sendWithin()}: then the adapter gives the grant back ({@link #unsent()}) and asks again.
   */
  boolean late() {
    Duration within = gate.sendWithin();
    return within != null && clientGate.ticker().nanoTime() - admittedAt > within.toNanos();
  }

  /** Releases the grant of a call that was not sent, with nothing of any dimension. */
  void unsent() {
    log.debug("call to {} not sent within its admission's bound; asking again", gate.target());
    release(GatedCall.unused(grant.debited()));
  }

  /** The gate that admitted the call. */
  Gate gate() {
    return gate;
  }

  /** What the gate was asked. */
  AdmissionRequest request() {
    return request;
  }

  /**
   * When the caller gives up on the call, in the client gate's ticker nanoseconds; {@link
   * ClientGate#NO_DEADLINE} when it gave no deadline.
   */
  long deadlineAt() {
    return deadlineAt;
  }

  /** The call as read from its request. */
  public ProviderCall call() {
    return call;
  }

  /** The grant the call was admitted with. */
  public Grant grant() {
    return grant;
  }

  /**
   * The provider answered with {@code statusCode}: the answer goes to the feedback hook, and an
   * answer other than 2xx releases the grant at once as a failed call.
   *
   * @param headers the answer's headers, names in lower case
   */
  public void answered(int statusCode, Map<String, List<String>> headers) {
    answered(statusCode, headers, null);
  }

  /**
   * As {@link #answered(int, Map)}, with the body of an answer that is not a success, for the
   * feedback to read why the call was refused.
   */
  public void answered(int statusCode, Map<String, List<String>> headers, @Nullable String body) {
    observe(statusCode, headers, body, false);
    if (statusCode >= 200 && statusCode < 300) {
      succeeded = true;
    } else {
      release(clientGate.costModel().failed());
    }
  }

  /**
   * The provider ended a stream that it had begun with a success by an error (Anthropic's {@code
   * event: error}, an exception message in Bedrock's event stream): the error goes to the feedback
   * hook as the answer of {@code statusCode} with {@code headers} and {@code body} that it would
   * have been before the stream began, so the gate reads it as it reads that answer (an overload as
   * an overload, a throttling as a rate limit), except for what only headers could have said: the
   * response is marked {@link ProviderResponse#midStream()}, so an Anthropic {@code
   * rate_limit_error} without a retry-after slows the gate down instead of reading as a spend
   * limit. The grant is not released here: the stream's tap releases it with what the stream
   * proved.
   *
   * @param headers the headers that answer would carry (Bedrock's error type), names in lower case
   */
  public void refusedMidStream(int statusCode, Map<String, List<String>> headers, String body) {
    observe(statusCode, headers, body, true);
  }

  private void observe(
      int statusCode, Map<String, List<String>> headers, @Nullable String body, boolean midStream) {
    try {
      clientGate
          .feedback()
          .observe(
              new ProviderResponse(
                  gate.target(), call.model(), statusCode, headers, body, midStream),
              grant,
              gate);
    } catch (RuntimeException e) {
      log.warn("provider feedback failed for target {}", gate.target(), e);
    }
  }

  /**
   * The answer's body as the SDK should read it: the same bytes, with the grant released from the
   * usage once the body is read to its end or closed. A failed answer's body is returned as is.
   */
  public InputStream tap(InputStream answer) {
    if (!succeeded) {
      return answer;
    }
    return call.stream()
        ? new SseTap(answer, clientGate.dialect().tally(call), this)
        : new BodyTap(answer, this);
  }

  /** The call failed before an answer arrived (connection refused, timeout, interrupt). */
  public void failed(Throwable failure) {
    log.debug("gated call to {} failed before an answer", gate.target(), failure);
    release(clientGate.costModel().failed());
  }

  /**
   * Releases with the usage of a complete answer's JSON body; the debited cost when it has none.
   */
  void completed(@Nullable JsonNode answer) {
    Cost actual =
        answer == null
            ? grant.debited()
            : clientGate
                .dialect()
                .usage(answer)
                .map(clientGate.costModel()::actual)
                .orElse(grant.debited());
    release(actual);
  }

  /**
   * Releases with what a stream's {@link StreamTally} says it cost, for an adapter that reads a
   * streamed answer {@link #tap} cannot (the AWS SDK's binary event stream); the first release
   * wins.
   */
  public void streamed(Usage usage) {
    release(clientGate.costModel().actual(usage));
  }

  /** Whether the grant has been released. */
  public boolean released() {
    return released.get();
  }

  private void release(Cost actual) {
    if (released.compareAndSet(false, true)) {
      clientGate.admitter().release(gate, grant, actual);
    }
  }
}
