package io.backpressure.mock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.eclipse.jetty.util.Callback;

/**
 * A 200 answered as a stream of events (server-sent events, or the dialect's framing) spread over
 * the call's simulated latency {@code L}: the opening events at once (so the status and the
 * rate-limit headers arrive first, as from a real provider), then the text in up to {@link
 * #MAX_PIECES} pieces, the {@code i}-th of {@code k} due at {@code L·i/k} after the decision, then
 * the closing events (with the usage) right after the last piece. The call is recorded just before
 * the closing events are written; if the client goes away first, it is recorded when the failed
 * write reveals it (the provider charged it all the same), so every admitted call is recorded
 * exactly once. When the provider becomes overloaded (the {@code overloaded} fault) while a stream
 * is under way, its next piece is replaced by the dialect's {@link Dialect#streamOverloaded() error
 * message}, which ends it (every dialect, each in its own error shape); so does the {@code
 * rateLimitedMidStream} fault with the dialect's {@link Dialect#streamRateLimited() rate-limit
 * error} (Anthropic). A stream cut so is recorded as a 200 with the completion tokens of the text
 * it delivered, not those it would have: the provider bills what it generated, and the tokens
 * limiter is given back the completion tokens it debited at admission but the stream never
 * delivered (under {@link ChargeMode#ACTUAL}; {@link ProviderState#refundUndelivered}). A stream
 * the client walked away from is charged whole.
 *
 * <p>Each write starts only after the previous one has completed, so a slow reader delays its own
 * stream and holds no thread. Not thread-safe: the chain of writes is its only driver.
 */
final class StreamedAnswer {

  /** The most pieces the text is cut into. */
  static final int MAX_PIECES = 8;

  private final Exchange exchange;
  private final Dialect dialect;
  private final ParsedCall call;
  private final ProviderState.Decision decision;
  private final long created;
  private final IntConsumer record;
  private final ScheduledExecutorService scheduler;
  private final Supplier<Faults> faults;
  private final List<String> pieces;
  private final long startNanos = System.nanoTime();
  private int next;
  private boolean recorded;

  StreamedAnswer(
      Exchange exchange,
      Dialect dialect,
      ParsedCall call,
      ProviderState.Decision decision,
      long created,
      IntConsumer record,
      ScheduledExecutorService scheduler,
      Supplier<Faults> faults) {
    this.exchange = exchange;
    this.dialect = dialect;
    this.call = call;
    this.decision = decision;
    this.created = created;
    this.record = record;
    this.scheduler = scheduler;
    this.faults = faults;
    this.pieces = pieces(Dialect.completionText(decision.completionTokens()));
  }

  /** Sends the status, the headers and the opening events, and schedules the rest. */
  void start() {
    exchange.startEvents(dialect.streamContentType());
    byte[] opening = dialect.streamBytes(dialect.streamStart(call, decision.id(), created));
    exchange.writeEvents(opening, false, Callback.from(this::scheduleNext, this::failed));
  }

  private void scheduleNext() {
    int due = Math.max(1, pieces.size());
    long dueNanos = decision.latencyNanos() * Math.min(next + 1, due) / due;
    long delay = dueNanos - (System.nanoTime() - startNanos);
    if (delay <= 0) {
      writeNext();
    } else {
      Exchange.later(scheduler, delay, this::writeNext, this::failed);
    }
  }

  private void writeNext() {
    Faults now = faults.get();
    byte[] cut =
        now.overloaded()
            ? dialect.streamOverloaded()
            : now.rateLimitedMidStream() ? dialect.streamRateLimited() : null;
    if (cut != null) {
      recordOnce(deliveredTokens());
      exchange.writeEvents(cut, true, Callback.NOOP);
      return;
    }
    if (next < pieces.size()) {
      String text = pieces.get(next++);
      byte[] event = dialect.streamBytes(dialect.streamDelta(call, decision.id(), created, text));
      if (next < pieces.size()) {
        exchange.writeEvents(event, false, Callback.from(this::scheduleNext, this::failed));
        return;
      }
      exchange.writeEvents(event, false, Callback.from(this::writeEnd, this::failed));
      return;
    }
    writeEnd();
  }

  private void writeEnd() {
    recordOnce(decision.completionTokens());
    byte[] end =
        dialect.streamBytes(
            dialect.streamEnd(
                call, decision.id(), created, decision.completionTokens(), decision.truncated()));
    exchange.writeEvents(end, true, Callback.NOOP);
  }

  private void failed(Throwable failure) {
    recordOnce(decision.completionTokens());
    exchange.abort(failure);
  }

  /** Records the call as a 200 with {@code completionTokens}, the first time only. */
  private void recordOnce(int completionTokens) {
    if (!recorded) {
      recorded = true;
      record.accept(completionTokens);
    }
  }

  /**
   * The completion tokens of the pieces written so far: their characters at the 4 a token that
   * {@link Dialect#completionText} writes, rounded up.
   */
  private int deliveredTokens() {
    int chars = 0;
    for (int i = 0; i < next; i++) {
      chars += pieces.get(i).length();
    }
    return Math.min(decision.completionTokens(), (chars + 3) / 4);
  }

  /** {@code text} cut into at most {@link #MAX_PIECES} pieces of nearly equal length. */
  static List<String> pieces(String text) {
    int count = Math.min(MAX_PIECES, text.length());
    List<String> pieces = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      pieces.add(text.substring(text.length() * i / count, text.length() * (i + 1) / count));
    }
    return pieces;
  }
}
