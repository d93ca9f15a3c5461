package io.backpressure.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.client.Dialect;
import io.backpressure.client.Dialects;
import io.backpressure.client.ProviderCall;
import io.backpressure.client.StreamTally;
import io.backpressure.client.Usage;
import io.backpressure.tokens.CharsPerToken;
import io.backpressure.tokens.TokenCounter;
import java.util.List;
import java.util.Optional;

/**
 * The Gemini API's {@code generateContent} and {@code streamGenerateContent} ({@code POST
 * …/models/{model}:generateContent}) as the gate reads them.
 *
 * <p>The model and the method are in the path, not the body, so the gated transport hands this
 * dialect a wrapped body, {@code {"model": …, "stream": …, "request": {the body}}} ({@link
 * GatedInterceptor}), and {@link #prepare} unwraps it before it is sent.
 *
 * <ul>
 *   <li>prompt tokens: <b>an estimate</b>, the characters of the text parts of {@code contents} and
 *       {@code systemInstruction} divided by 4, rounded up. Google publishes no Gemini tokenizer
 *       for Java (its {@code countTokens} is a call to the API, which would cost a request of the
 *       quota per call); Google documents about 4 characters per token. Images, files and tools
 *       count nothing here. The release corrects the estimate with the answer's {@code
 *       usageMetadata}, and the gate learns the correction per class.
 *   <li>completion limit: {@code generationConfig.maxOutputTokens} times {@code candidateCount};
 *       none when the request sets none.
 *   <li>usage: {@code usageMetadata.promptTokenCount}, and {@code candidatesTokenCount} plus {@code
 *       thoughtsTokenCount} as the output; a stream reports them in its chunks, the last one whole
 *       ({@link GeminiStreamTally}).
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class GeminiGenerate implements Dialect {

  /** The one instance. */
  public static final GeminiGenerate INSTANCE = new GeminiGenerate();

  /** The gated methods, as they end the path's last segment. */
  static final String GENERATE = ":generateContent";

  static final String STREAM = ":streamGenerateContent";

  /** About 4 characters per token, rounded up: the estimate Google documents for Gemini. */
  static final TokenCounter ESTIMATE = CharsPerToken.GENERAL;

  private GeminiGenerate() {}

  @Override
  public boolean gates(String method, List<String> pathSegments) {
    if (!method.equals("POST") || pathSegments.isEmpty()) {
      return false;
    }
    String last = pathSegments.get(pathSegments.size() - 1);
    return last.endsWith(GENERATE) || last.endsWith(STREAM);
  }

  @Override
  public ProviderCall read(ObjectNode body) {
    String model = Dialects.requireText(body, "model", "in the request path");
    JsonNode request = body.path("request");
    StringBuilder text = new StringBuilder();
    for (JsonNode content : Dialects.requireArray(request, "contents")) {
      text.append(partsText(content));
    }
    text.append(partsText(request.path("systemInstruction")));
    JsonNode config = request.path("generationConfig");
    Long maxTokens = null;
    if (config.path("maxOutputTokens").canConvertToLong()) {
      long candidates =
          config.path("candidateCount").canConvertToLong()
              ? Math.max(1, config.path("candidateCount").asLong())
              : 1;
      maxTokens = Math.max(0, config.path("maxOutputTokens").asLong()) * candidates;
    }
    return new ProviderCall(
        model, ESTIMATE.count(text.toString()), maxTokens, body.path("stream").asBoolean(false));
  }

  /** Unwraps the request: what is sent is the caller's body alone. */
  @Override
  public boolean prepare(ObjectNode body, ProviderCall call) {
    JsonNode request = body.path("request");
    body.removeAll();
    if (request.isObject()) {
      body.setAll((ObjectNode) request);
    }
    return true;
  }

  @Override
  public Optional<Usage> usage(JsonNode answer) {
    JsonNode usage = answer.path("usageMetadata");
    if (!usage.path("promptTokenCount").canConvertToLong()) {
      return Optional.empty();
    }
    long output =
        usage.path("candidatesTokenCount").asLong(0) + usage.path("thoughtsTokenCount").asLong(0);
    return Optional.of(
        new Usage(Math.max(0, usage.path("promptTokenCount").asLong()), Math.max(0, output)));
  }

  @Override
  public StreamTally tally(ProviderCall call) {
    return new GeminiStreamTally(call);
  }

  /** The text parts of one {@code Content}, joined. */
  static String partsText(JsonNode content) {
    return Dialects.texts(content.path("parts"));
  }
}
