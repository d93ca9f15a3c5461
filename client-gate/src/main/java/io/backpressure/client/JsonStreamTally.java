package io.backpressure.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.backpressure.tokens.TokenCounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;

/**
 * A {@link StreamTally} for a stream whose events carry JSON: a subclass reads each event's JSON,
 * {@link #report reports} the usage the stream states and hands over the text it delivers ({@link
 * #streamed}); this class keeps both and says what the stream cost. A stream that stated no usage
 * (one cut or cancelled before it) is released with the call's prompt estimate and the delivered
 * text counted by the call's {@link TokenCounter}. One stream; not thread-safe.
 */
public abstract class JsonStreamTally implements StreamTally {

  private final ProviderCall call;
  private final TokenCounter counter;
  private final StringBuilder streamed = new StringBuilder();
  private @Nullable Usage reported;

  /**
   * A tally of one streamed answer to {@code call}, counting delivered text with {@code counter}.
   */
  protected JsonStreamTally(ProviderCall call, TokenCounter counter) {
    this.call = call;
    this.counter = counter;
  }

  /**
   * Reads {@code data} as JSON and hands it to {@link #onJson}.
   *
   * @throws UncheckedIOException when {@code data} is not JSON
   */
  @Override
  public void onEvent(@Nullable String event, String data) {
    try {
      onJson(event, ClientGate.JSON.readTree(data));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One event, its data read as JSON: report the usage it states, hand over the text it holds. */
  protected abstract void onJson(@Nullable String event, JsonNode data);

  /** Reads {@code data} as JSON and asks {@link #refusal(String, JsonNode)}; null when not JSON. */
  @Override
  public final @Nullable Integer refusal(@Nullable String event, String data) {
    JsonNode json;
    try {
      json = ClientGate.JSON.readTree(data);
    } catch (IOException e) {
      return null;
    }
    return json == null ? null : refusal(event, json);
  }

  /**
   * The HTTP status of the refusal that an event's JSON carries, as {@link
   * StreamTally#refusal(String, String)} says; null (the default) for an event that is no refusal.
   */
  protected @Nullable Integer refusal(@Nullable String event, JsonNode data) {
    return null;
  }

  /** The usage the stream states; the latest report wins. */
  protected final void report(Usage usage) {
    reported = usage;
  }

  /** Text the stream delivered, appended to what it delivered before. */
  protected final void streamed(String text) {
    streamed.append(text);
  }

  /** The call this stream answers. */
  protected final ProviderCall call() {
    return call;
  }

  /** The tokens of the text delivered so far, by the call's counter. */
  protected final long streamedTokens() {
    return counter.count(streamed.toString());
  }

  /**
   * The usage {@link #report reported} last; without one, the call's prompt estimate and the {@link
   * #streamedTokens tokens delivered}.
   */
  @Override
  public Usage usage(boolean complete) {
    if (reported != null) {
      return reported;
    }
    return new Usage(call.promptTokens(), streamedTokens());
  }
}
