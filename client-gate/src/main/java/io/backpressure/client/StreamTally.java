package io.backpressure.client;

import org.jspecify.annotations.Nullable;

/**
 * Follows one streamed answer event by event and says what it cost. Used by one stream only; not
 * thread-safe.
 */
public interface StreamTally {

  /**
   * One server-sent event.
   *
   * @param event the {@code event:} field, or null when the event has none
   * @param data the {@code data:} lines joined by newlines
   */
  void onEvent(@Nullable String event, String data);

  /**
   * The HTTP status of the refusal that {@code event} carries, for a provider that ends a stream it
   * began with a success by an error event (Anthropic's {@code event: error}); null for any other
   * event (the default). The event's data then goes to the provider feedback as the body of an
   * answer of that status, so the gate reads it as it reads that answer before a stream.
   */
  default @Nullable Integer refusal(@Nullable String event, String data) {
    return null;
  }

  /**
   * What to release with. When the stream reported its usage, that; otherwise what the stream
   * proves: the input counted (as reported, or the estimate: an answer that started streaming had
   * its prompt accepted) and at least the tokens of the text streamed so far.
   *
   * @param complete whether the stream ended normally rather than being cut or cancelled
   */
  Usage usage(boolean complete);
}
