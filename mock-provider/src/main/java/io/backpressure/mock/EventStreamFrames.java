package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.eventstream.HeaderValue;
import software.amazon.awssdk.eventstream.Message;

/**
 * AWS's event-stream framing ({@code application/vnd.amazon.eventstream}), as Bedrock streams its
 * answers: each event a binary message with a prelude (total and headers length, CRC32), the
 * headers {@code :event-type}, {@code :content-type} and {@code :message-type}, a JSON payload and
 * the message's CRC32. The Bedrock dialects write their events as named server-sent events (the
 * name the {@code :event-type}, the data the payload), which {@link #frame} turns into these
 * messages.
 */
final class EventStreamFrames {

  /** The content type of an AWS event stream. */
  static final String CONTENT_TYPE = "application/vnd.amazon.eventstream";

  private EventStreamFrames() {}

  /** One named event, as a Bedrock dialect's stream methods write it. */
  static String event(String type, JsonNode payload) {
    return Dialect.namedEvent(type, payload);
  }

  /**
   * One exception message, with which Bedrock ends a stream under way: {@code :message-type} {@code
   * exception}, {@code :exception-type} the error's type in camel case (such as {@code
   * throttlingException}), the error body as payload.
   */
  static byte[] exception(String type, JsonNode body) {
    Map<String, HeaderValue> headers = new LinkedHashMap<>();
    headers.put(":exception-type", HeaderValue.fromString(type));
    headers.put(":content-type", HeaderValue.fromString("application/json"));
    headers.put(":message-type", HeaderValue.fromString("exception"));
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    new Message(headers, body.toString().getBytes(StandardCharsets.UTF_8)).encode(out);
    return out.toByteArray();
  }

  /**
   * The event-stream messages of {@code events}: server-sent events written by {@link #event}, each
   * an {@code event:} line, a {@code data:} line and a blank line.
   */
  static byte[] frame(String events) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(events.length() + 256);
    for (String block : events.split("\n\n")) {
      if (block.isEmpty()) {
        continue;
      }
      int newline = block.indexOf('\n');
      if (!block.startsWith("event: ") || newline < 0 || !block.startsWith("data: ", newline + 1)) {
        throw new IllegalArgumentException("not a named event: " + block);
      }
      Map<String, HeaderValue> headers = new LinkedHashMap<>();
      headers.put(":event-type", HeaderValue.fromString(block.substring(7, newline)));
      headers.put(":content-type", HeaderValue.fromString("application/json"));
      headers.put(":message-type", HeaderValue.fromString("event"));
      byte[] payload = block.substring(newline + 7).getBytes(StandardCharsets.UTF_8);
      new Message(headers, payload).encode(out);
    }
    return out.toByteArray();
  }
}
