package io.backpressure.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A complete (not streamed) answer's body, copied as the SDK reads it; at its end, or when the SDK
 * closes it, the rest is drained, the copy parsed and the grant released with the usage. Used by
 * one reader; not thread-safe.
 */
final class BodyTap extends FilterInputStream {

  private final Exchange exchange;
  private final ByteArrayOutputStream copy = new ByteArrayOutputStream(1024);
  private boolean done;

  BodyTap(InputStream answer, Exchange exchange) {
    super(answer);
    this.exchange = exchange;
  }

  @Override
  public int read() throws IOException {
    int b = readOrFail(() -> in.read());
    if (b < 0) {
      finish();
    } else {
      copy.write(b);
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = readOrFail(() -> in.read(buffer, offset, length));
    if (n < 0) {
      finish();
    } else {
      copy.write(buffer, offset, n);
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    byte[] skipped = new byte[(int) Math.min(n, 8192)];
    int read = read(skipped, 0, skipped.length);
    return Math.max(read, 0);
  }

  @Override
  public void close() throws IOException {
    try {
      if (!done) {
        byte[] rest = new byte[8192];
        while (read(rest, 0, rest.length) >= 0) {
          // drain: the usage may follow what the SDK's parser read
        }
      }
    } catch (IOException e) {
      // the read already released the grant
    } finally {
      super.close();
    }
  }

  @Override
  public boolean markSupported() {
    return false;
  }

  private int readOrFail(IoRead read) throws IOException {
    try {
      return read.read();
    } catch (IOException | RuntimeException e) {
      if (!done) {
        done = true;
        exchange.completed(null);
      }
      throw e;
    }
  }

  private void finish() {
    if (done) {
      return;
    }
    done = true;
    JsonNode answer;
    try {
      answer = ClientGate.JSON.readTree(copy.toByteArray());
    } catch (IOException e) {
      answer = null;
    }
    exchange.completed(answer);
  }

  @FunctionalInterface
  interface IoRead {
    int read() throws IOException;
  }
}
