package io.backpressure.mock;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** Sizes the server refuses, and what a refused or broken request leaves behind. */
class RequestLimitsTest {

  private static final String CHAT = Http.chat("hi", 3);

  private static MockProviderConfig.Builder instant() {
    return MockProviderConfig.builder().latencyMs(0, 0);
  }

  private static String post(String headers, String body) {
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Content-Type: application/json\r\n"
        + headers
        + "\r\n"
        + body;
  }

  private static JsonNode error(String answer) throws Exception {
    return Http.JSON.readTree(RawHttp.body(answer)).path("error");
  }

  @Test
  void headersOverTheLimitGet431InOpenAiShapeAndTheServerKeepsServing() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().maxHeaderBytes(4096).build())) {
      String request =
          post(
              "X-Tenant: " + "t".repeat(5_000) + "\r\nContent-Length: " + CHAT.length() + "\r\n",
              CHAT);

      String answer = RawHttp.send(provider, request, false);

      assertThat(RawHttp.status(answer)).isEqualTo(431);
      assertThat(error(answer).path("message").asText())
          .isEqualTo("Request header fields too large: the limit is 4096 bytes.");
      assertThat(error(answer).path("code").asText()).isEqualTo("request_header_fields_too_large");
      assertThat(new Http(provider).post("/v1/chat/completions", CHAT).status()).isEqualTo(200);
    }
  }

  @Test
  void aMalformedRequestGets400InOpenAiShape() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().build())) {
      String answer =
          RawHttp.send(provider, "POST /v1/chat/completions HTTP/1.1\r\nBad Header\r\n\r\n", false);

      assertThat(RawHttp.status(answer)).isEqualTo(400);
      assertThat(answer).containsIgnoringCase("content-type: application/json");
      assertThat(error(answer).path("type").asText()).isEqualTo("invalid_request_error");
      assertThat(error(answer).path("code").asText()).isEqualTo("http_400");
      assertThat(provider.records()).isEmpty();
    }
  }

  @Test
  void aBodyOverTheLimitGets413WhetherDeclaredOrChunked() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().maxBodyBytes(1024).build())) {
      String big = Http.chat("x".repeat(2_000), 3);
      String declared =
          RawHttp.send(provider, post("Content-Length: " + big.length() + "\r\n", big), false);
      String chunked =
          RawHttp.send(
              provider,
              post(
                  "Transfer-Encoding: chunked\r\n",
                  Integer.toHexString(big.length()) + "\r\n" + big + "\r\n0\r\n\r\n"),
              false);

      for (String answer : new String[] {declared, chunked}) {
        assertThat(RawHttp.status(answer)).isEqualTo(413);
        assertThat(error(answer).path("message").asText())
            .isEqualTo("Request body too large: the limit is 1024 bytes.");
        assertThat(error(answer).path("code").asText()).isEqualTo("request_too_large");
      }
      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(413, 413);
      assertThat(new Http(provider).post("/v1/chat/completions", CHAT).status()).isEqualTo(200);
    }
  }

  @Test
  void aBodyShorterThanItsContentLengthGets400() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().build())) {
      String answer =
          RawHttp.send(
              provider, post("Content-Length: " + (CHAT.length() + 50) + "\r\n", CHAT), true);

      assertThat(RawHttp.status(answer)).isEqualTo(400);
      assertThat(error(answer).path("code").asText()).isEqualTo("incomplete_body");
      assertThat(error(answer).path("message").asText())
          .startsWith("Request body incomplete: it ended before the " + (CHAT.length() + 50));
      assertThat(provider.records()).extracting(RequestRecord::status).containsExactly(400);
    }
  }

  @Test
  void longHeaderValuesAreCutInTheRecords() throws Exception {
    try (MockProvider provider = MockProvider.start(instant().build())) {
      new Http(provider)
          .post(
              "/v1/chat/completions",
              CHAT,
              "x-tenant",
              "t".repeat(10_000),
              "x-call-id",
              "c".repeat(300));

      RequestRecord record = provider.records().get(0);
      assertThat(record.tenant()).isEqualTo("t".repeat(RequestContext.MAX_CHARS));
      assertThat(record.callId()).hasSize(RequestContext.MAX_CHARS);
    }
  }

  @Test
  void theRecordsKeptStayWithinTheirByteBudget() {
    long budget = 1L << 20;
    MockProviderConfig config = instant().maxRecordBytes(budget).build();
    ProviderState state = new ProviderState(config, System.nanoTime());
    RequestContext wide = new RequestContext("t".repeat(200), "p".repeat(200), "c".repeat(200));
    long perRecord = wide.estimatedBytes();

    for (int i = 0; i < 10_000; i++) {
      state.record(wide, 400, null, 0, 0, 0, 0, state.now());
      if (i % 100 == 0) {
        assertThat(state.records(0).size() * perRecord).isLessThanOrEqualTo(budget);
      }
    }
    assertThat(state.records(0)).isNotEmpty();
    assertThat(state.records(0).get(state.records(0).size() - 1).seq()).isEqualTo(9_999);
    assertThat(state.summary().badRequests()).isEqualTo(10_000);
  }
}
