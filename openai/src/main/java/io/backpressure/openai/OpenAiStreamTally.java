package io.backpressure.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.StreamTally;
import io.backpressure.client.Usage;
import io.backpressure.tokens.TokenCounter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * Follows a streamed chat completion: keeps the usage of the final chunk, and the text of the
 * content deltas so that a cut stream can be released with at least the tokens it delivered. One
 * stream; not thread-safe.
 */
final class OpenAiStreamTally implements StreamTally {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ProviderCall call;
  private final OpenAiChat dialect;
  private final StringBuilder streamed = new StringBuilder();
  private Usage reported;

  OpenAiStreamTally(ProviderCall call, OpenAiChat dialect) {
    this.call = call;
    this.dialect = dialect;
  }

  @Override
  public void onEvent(String event, String data) {
    if (data.equals("[DONE]")) {
      return;
    }
    JsonNode chunk;
    try {
      chunk = JSON.readTree(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Optional<Usage> usage = dialect.usage(chunk);
    if (usage.isPresent()) {
      reported = usage.get();
    }
    for (JsonNode choice : chunk.path("choices")) {
      JsonNode content = choice.path("delta").path("content");
      if (content.isTextual()) {
        streamed.append(content.asText());
      }
    }
  }

  @Override
  public Usage usage(boolean complete) {
    if (reported != null) {
      return reported;
    }
    long output = TokenCounter.forModel(call.model()).count(streamed.toString());
    return new Usage(call.promptTokens(), output);
  }
}
