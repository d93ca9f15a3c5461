package io.backpressure.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * One provider API's request and answer shapes: which endpoints are gated, what a request costs,
 * where the answer reports its usage. Implemented by the {@code openai}, {@code anthropic}, {@code
 * gemini} and {@code bedrock} modules, with what they read alike in {@link Dialects} and {@link
 * JsonStreamTally}; stateless and thread-safe.
 */
public interface Dialect {

  /** Whether a request with this method and path (the SDK's path segments) is gated. */
  boolean gates(String method, List<String> pathSegments);

  /**
   * Reads the model, the prompt tokens, the completion limit and the stream flag.
   *
   * @throws IllegalArgumentException naming the field when the body lacks what the estimate needs
   */
  ProviderCall read(ObjectNode body);

  /**
   * Adjusts the body before it is sent, for example asking a stream to report its usage.
   *
   * @return whether the body was changed
   */
  boolean prepare(ObjectNode body, ProviderCall call);

  /** The usage a complete (not streamed) answer reports, if it reports one. */
  Optional<Usage> usage(JsonNode answer);

  /** A fresh reader for the events of one streamed answer to {@code call}. */
  StreamTally tally(ProviderCall call);
}
