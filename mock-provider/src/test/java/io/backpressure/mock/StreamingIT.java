package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Streamed answers in wall-clock time: spread over the latency, and a client that leaves early. */
class StreamingIT {

  private static final String STREAMED =
      "{\"model\":\"gpt-4o-mini\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  private static String request(String body) {
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Content-Type: application/json\r\nContent-Length: "
        + body.length()
        + "\r\n\r\n"
        + body;
  }

  @Test
  void theTextArrivesSpreadOverTheLatency() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(2_000, 2_000)
            .completionTokens(new CompletionTokens.Fixed(40))
            .build();
    try (MockProvider provider = MockProvider.start(config);
        Socket socket = RawHttp.open(provider)) {
      long start = System.nanoTime();
      socket.getOutputStream().write(request(STREAMED).getBytes(StandardCharsets.ISO_8859_1));
      InputStream in = socket.getInputStream();
      List<Long> dataLinesAt = new ArrayList<>();
      StringBuilder line = new StringBuilder();
      while (dataLinesAt.isEmpty() || !line.toString().equals("data: [DONE]")) {
        int c = in.read();
        assertThat(c).isNotNegative();
        if (c == '\n') {
          line.setLength(0);
        } else {
          line.append((char) c);
          if (line.toString().equals("data: ")) {
            dataLinesAt.add(System.nanoTime() - start);
          }
        }
      }

      // role, 8 pieces, finish, usage, [DONE]
      assertThat(dataLinesAt).hasSize(12);
      Duration first = Duration.ofNanos(dataLinesAt.get(0));
      Duration fifth = Duration.ofNanos(dataLinesAt.get(5));
      Duration last = Duration.ofNanos(dataLinesAt.get(dataLinesAt.size() - 1));
      assertThat(last).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
      // Loose bounds for a loaded machine: the head comes long before the end, and the middle
      // piece (due at 1.25 s) neither with the head nor with the end.
      assertThat(first).isLessThan(Duration.ofSeconds(1));
      assertThat(fifth).isBetween(first.plusMillis(300), last.minusMillis(300));
    }
  }

  @Test
  void aClientLeavingMidStreamIsRecordedOnceAndNothingStaysInFlight() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .latencyMs(3_000, 3_000)
            .completionTokens(new CompletionTokens.Fixed(40))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      try (Socket socket = RawHttp.open(provider)) {
        socket.getOutputStream().write(request(STREAMED).getBytes(StandardCharsets.ISO_8859_1));
        String head = RawHttp.readAnswer(socket.getInputStream());
        assertThat(RawHttp.status(head)).isEqualTo(200);
        assertThat(provider.summary().inFlight()).isEqualTo(1);
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (provider.summary().inFlight() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }

      assertThat(provider.summary().inFlight()).isZero();
      assertThat(provider.records()).hasSize(1);
      assertThat(provider.records().get(0).status()).isEqualTo(200);
      assertThat(new Http(provider).post("/v1/chat/completions", Http.chat("hi", 1)).status())
          .isEqualTo(200);
    }
  }
}
