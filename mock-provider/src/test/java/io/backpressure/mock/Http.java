package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A small JSON-over-HTTP client for the tests. */
final class Http {

  static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String url;

  Http(MockProvider provider) {
    this.url = provider.url();
  }

  /** A response with its body parsed as JSON. */
  record Answer(int status, java.net.http.HttpHeaders headers, JsonNode body) {
    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }
  }

  static String chat(String content, Integer maxTokens) {
    return "{\"model\":\"gpt-4o-mini\","
        + (maxTokens == null ? "" : "\"max_tokens\":" + maxTokens + ",")
        + "\"messages\":[{\"role\":\"user\",\"content\":\""
        + content
        + "\"}]}";
  }

  Answer post(String path, String body, String... headers) {
    return join(postAsync(path, body, headers));
  }

  CompletableFuture<Answer> postAsync(String path, String body, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(Duration.ofSeconds(30))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return send(request.build());
  }

  Answer get(String path) {
    return join(
        send(
            HttpRequest.newBuilder(URI.create(url + path))
                .timeout(Duration.ofSeconds(30))
                .build()));
  }

  Answer send(String method, String path) {
    return join(
        send(
            HttpRequest.newBuilder(URI.create(url + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build()));
  }

  private CompletableFuture<Answer> send(HttpRequest request) {
    return client
        .sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(
            response -> {
              try {
                return new Answer(
                    response.statusCode(), response.headers(), JSON.readTree(response.body()));
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
  }

  private static Answer join(CompletableFuture<Answer> answer) {
    return answer.join();
  }
}
