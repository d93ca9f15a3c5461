package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Clients that stop half-way do not stop the server: connections stalled in the request line, in
 * the headers and in the body, many more than the server has threads, while ordinary calls go on
 * being answered; a stalled body is answered 400 once the idle timeout passes.
 */
class StalledClientsIT {

  private static final int STALLED_PER_KIND = 40;

  @Test
  void stalledConnectionsDoNotDelayOtherClients() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder().latencyMs(10, 10).idleTimeoutMs(60_000).build();
    List<Socket> stalled = new ArrayList<>();
    try (MockProvider provider = MockProvider.start(config)) {
      String body = Http.chat("hi", 3);
      String[] partials = {
        "POST /v1/chat/comp",
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Tenant: sl",
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
            + body.length()
            + "\r\n\r\n"
            + body.substring(0, 10)
      };
      for (String partial : partials) {
        for (int i = 0; i < STALLED_PER_KIND; i++) {
          Socket socket = RawHttp.open(provider);
          OutputStream out = socket.getOutputStream();
          out.write(partial.getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
          stalled.add(socket);
        }
      }

      Http http = new Http(provider);
      long start = System.nanoTime();
      List<CompletableFuture<Http.Answer>> calls = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        calls.add(http.postAsync("/v1/chat/completions", body, "x-tenant", "live"));
      }
      for (CompletableFuture<Http.Answer> call : calls) {
        assertThat(call.join().status()).isEqualTo(200);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      // 120 stalled connections against a pool of 16 threads: the old server stopped at 4. The
      // bound is loose for a loaded machine; a blocked server would wait out the 60 s timeout.
      assertThat(took).isLessThan(Duration.ofSeconds(20));
      assertThat(provider.records())
          .hasSize(50)
          .allSatisfy(r -> assertThat(r.tenant()).isEqualTo("live"));
    } finally {
      for (Socket socket : stalled) {
        socket.close();
      }
    }
  }

  @Test
  void aStalledBodyIsAnswered400WhenTheIdleTimeoutPasses() throws Exception {
    MockProviderConfig config = MockProviderConfig.builder().idleTimeoutMs(1_000).build();
    try (MockProvider provider = MockProvider.start(config)) {
      // Load the server's classes first: on a loaded machine that alone can outlast the timeout.
      assertThat(new Http(provider).get("/health").status()).isEqualTo(200);
      String answer;
      try (Socket socket = RawHttp.open(provider)) {
        socket
            .getOutputStream()
            .write(
                ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"
                        + "\r\n{\"model\":")
                    .getBytes(StandardCharsets.ISO_8859_1));
        answer = RawHttp.readAnswer(socket.getInputStream());
      }

      assertThat(RawHttp.status(answer)).isEqualTo(400);
      assertThat(RawHttp.body(answer)).contains("incomplete_body");
      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(400);
    }
  }

  @Test
  void theSimulatedLatencyOutlastsTheIdleTimeoutWholeOrStreamed() throws Exception {
    MockProviderConfig config =
        MockProviderConfig.builder()
            .idleTimeoutMs(1_000)
            .latencyMs(5_000, 5_000)
            .completionTokens(new CompletionTokens.Fixed(1))
            .build();
    try (MockProvider provider = MockProvider.start(config)) {
      Http http = new Http(provider);
      // A first request loads the server's classes: on a loaded machine that alone can take longer
      // than the short idle timeout this test needs.
      assertThat(http.get("/health").status()).isEqualTo(200);
      String streamed =
          "{\"model\":\"m\",\"stream\":true,"
              + "\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";

      // The whole answer and the streamed one wait out their latencies side by side.
      CompletableFuture<Http.Answer> whole =
          http.postAsync("/v1/chat/completions", Http.chat("hi", null));
      // 4 pieces 1.25 s apart, each gap longer than the idle timeout.
      String answer;
      try (Socket socket = RawHttp.open(provider)) {
        socket
            .getOutputStream()
            .write(
                ("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                        + "Content-Length: "
                        + streamed.length()
                        + "\r\n\r\n"
                        + streamed)
                    .getBytes(StandardCharsets.ISO_8859_1));
        answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      }
      assertThat(whole.join().status()).isEqualTo(200);
      assertThat(RawHttp.status(answer)).isEqualTo(200);
      assertThat(answer).contains("data: [DONE]");
      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(200, 200);
    }
  }
}
