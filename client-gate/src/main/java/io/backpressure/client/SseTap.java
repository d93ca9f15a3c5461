package io.backpressure.client;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A streamed answer's body, split into server-sent events as the SDK reads it and fed to the
 * dialect's {@link StreamTally}. At the stream's end the grant is released with the reported usage;
 * when the stream breaks (a read throws) or the SDK closes it early (the caller cancelled), with
 * what the tally can prove. An error event that ends a stream begun with a success ({@link
 * StreamTally#refusal}) goes to the provider feedback as the refusal it stands for. Event framing
 * follows the HTML standard's {@code text/event-stream}: lines end in LF or CRLF, a blank line ends
 * an event, lines starting with ':' are comments, and one space after a field's colon is dropped.
 * Unlike the standard, an unterminated last event is still read when the stream ends: it can only
 * add usage. Used by one reader; not thread-safe.
 */
final class SseTap extends FilterInputStream {

  private final StreamTally tally;
  private final Exchange exchange;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  private final StringBuilder data = new StringBuilder();
  private @Nullable String event;
  private boolean hasData;
  private boolean done;

  SseTap(InputStream answer, StreamTally tally, Exchange exchange) {
    super(answer);
    this.tally = tally;
    this.exchange = exchange;
  }

  @Override
  public int read() throws IOException {
    int b = readOrBreak(() -> in.read());
    if (b < 0) {
      finish(true);
    } else {
      feed((byte) b);
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = readOrBreak(() -> in.read(buffer, offset, length));
    if (n < 0) {
      finish(true);
    } else {
      for (int i = offset; i < offset + n; i++) {
        feed(buffer[i]);
      }
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    byte[] skipped = new byte[(int) Math.min(n, 8192)];
    int read = read(skipped, 0, skipped.length);
    return Math.max(read, 0);
  }

  /** Closing before the end cancels the stream: release what was proven. */
  @Override
  public void close() throws IOException {
    try {
      finish(false);
    } finally {
      super.close();
    }
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  private int readOrBreak(BodyTap.IoRead read) throws IOException {
    try {
      return read.read();
    } catch (IOException | RuntimeException e) {
      finish(false);
      throw e;
    }
  }

  private void feed(byte b) {
    if (b != '\n') {
      line.write(b);
      return;
    }
    byte[] bytes = line.toByteArray();
    int length =
        bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
    line.reset();
    onLine(new String(bytes, 0, length, StandardCharsets.UTF_8));
  }

  private void onLine(String text) {
    if (text.isEmpty()) {
      dispatch();
      return;
    }
    if (text.charAt(0) == ':') {
      return;
    }
    int colon = text.indexOf(':');
    String field = colon < 0 ? text : text.substring(0, colon);
    String value = colon < 0 ? "" : text.substring(colon + 1);
    if (value.startsWith(" ")) {
      value = value.substring(1);
    }
    if (field.equals("event")) {
      event = value;
    } else if (field.equals("data")) {
      if (hasData) {
        data.append('\n');
      }
      data.append(value);
      hasData = true;
    }
  }

  private void dispatch() {
    if (hasData) {
      String text = data.toString();
      try {
        tally.onEvent(event, text);
        Integer refusal = tally.refusal(event, text);
        if (refusal != null) {
          exchange.refusedMidStream(refusal, Map.of(), text);
        }
      } catch (RuntimeException e) {
        // a malformed event is the SDK's to report; the tally keeps what it had
      }
    }
    event = null;
    data.setLength(0);
    hasData = false;
  }

  private void finish(boolean complete) {
    if (done) {
      return;
    }
    done = true;
    if (complete) {
      if (line.size() > 0) {
        feed((byte) '\n');
      }
      dispatch();
    }
    exchange.streamed(tally.usage(complete));
  }
}
