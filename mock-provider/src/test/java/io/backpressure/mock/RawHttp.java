package io.backpressure.mock;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Hand-written HTTP/1.1 on a plain socket, for requests that a client library will not send. */
final class RawHttp {

  private RawHttp() {}

  /**
   * Sends {@code request} as is, then (with {@code halfClose}) ends the output, and returns the
   * status line, headers and body the server sends before it closes the connection or stays silent
   * for 10 s.
   */
  static String send(MockProvider provider, String request, boolean halfClose) throws IOException {
    try (Socket socket = open(provider)) {
      socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      socket.getOutputStream().flush();
      if (halfClose) {
        socket.shutdownOutput();
      }
      return readAnswer(socket.getInputStream());
    }
  }

  /** A connected socket with a 10 s read timeout. */
  static Socket open(MockProvider provider) throws IOException {
    Socket socket =
        new Socket(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), provider.port());
    socket.setSoTimeout(10_000);
    return socket;
  }

  /** One answer: its head, then as many body bytes as its Content-Length says. */
  static String readAnswer(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      head.append((char) c);
      if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        break;
      }
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).strip());
      }
    }
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  /** The status code of an answer read by {@link #readAnswer}. */
  static int status(String answer) {
    return Integer.parseInt(answer.substring("HTTP/1.1 ".length(), "HTTP/1.1 ".length() + 3));
  }

  /** The body of an answer read by {@link #readAnswer}. */
  static String body(String answer) {
    return answer.substring(answer.indexOf("\r\n\r\n") + 4);
  }
}
