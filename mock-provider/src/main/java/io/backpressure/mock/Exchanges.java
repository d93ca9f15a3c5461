package io.backpressure.mock;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Reading request bodies and writing JSON answers on the JDK HTTP server. */
final class Exchanges {

  /** Snake-case JSON, the wire style of both providers and of the records endpoint. */
  static final ObjectMapper JSON =
      new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

  /**
   * How much of an oversized body is read and thrown away so that the client sees the 400 rather
   * than a reset connection; beyond this the connection is closed after the answer.
   */
  private static final long DISCARD_LIMIT = 64L * 1024 * 1024;

  private Exchanges() {}

  /**
   * The request body, at most {@code maxBytes} long.
   *
   * @throws BadRequestException when the body is longer (the excess is discarded)
   */
  static byte[] readBody(HttpExchange exchange, int maxBytes)
      throws IOException, BadRequestException {
    InputStream in = exchange.getRequestBody();
    long declared = declaredLength(exchange);
    byte[] body;
    if (declared >= 0 && declared <= maxBytes) {
      body = new byte[(int) declared];
      int read = in.readNBytes(body, 0, body.length);
      if (read < body.length) {
        throw new BadRequestException(
            "Request body ended after " + read + " of " + declared + " bytes.",
            null,
            "incomplete_body");
      }
    } else {
      body = in.readNBytes(maxBytes + 1);
    }
    if (body.length > maxBytes) {
      // Read rather than skip: the server's body stream counts only what is read through it.
      byte[] sink = new byte[64 * 1024];
      long discarded = 0;
      for (int n; discarded < DISCARD_LIMIT && (n = in.read(sink)) >= 0; ) {
        discarded += n;
      }
      throw new BadRequestException(
          "Request body too large: the limit is " + maxBytes + " bytes.",
          null,
          "request_too_large");
    }
    return body;
  }

  /** The request's {@code Content-Length}, or -1 when absent or not a number. */
  private static long declaredLength(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("content-length");
    if (header == null) {
      return -1;
    }
    try {
      return Long.parseLong(header.strip());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Sends {@code body} as JSON with {@code status} and ends the exchange. */
  static void send(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("content-type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
    exchange.close();
  }
}
