package io.backpressure.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * What {@link Dialect} implementations read the same way whatever the provider: a request's path
 * and required fields, a {@code usage} object's two counts, the text of content blocks. Stateless
 * and thread-safe.
 */
public final class Dialects {

  private Dialects() {}

  /**
   * Whether the request is a {@code POST} whose path ends with {@code tail}, for {@link
   * Dialect#gates}.
   */
  public static boolean postTo(String method, List<String> pathSegments, String... tail) {
    int offset = pathSegments.size() - tail.length;
    if (!method.equals("POST") || offset < 0) {
      return false;
    }
    for (int i = 0; i < tail.length; i++) {
      if (!pathSegments.get(offset + i).equals(tail[i])) {
        return false;
      }
    }
    return true;
  }

  /**
   * The string {@code body} has at {@code field}.
   *
   * @param where where the field was looked for, for the error ({@code "in the request body"})
   * @throws IllegalArgumentException naming the field when it is missing, not a string or blank
   */
  public static String requireText(JsonNode body, String field, String where) {
    JsonNode value = body.path(field);
    if (!value.isTextual() || value.asText().isBlank()) {
      throw new IllegalArgumentException(field + " must be a non-empty string " + where);
    }
    return value.asText();
  }

  /**
   * The array {@code body} has at {@code field}.
   *
   * @throws IllegalArgumentException naming the field when it is missing or not an array
   */
  public static JsonNode requireArray(JsonNode body, String field) {
    JsonNode value = body.path(field);
    if (!value.isArray()) {
      throw new IllegalArgumentException(field + " must be an array in the request body");
    }
    return value;
  }

  /**
   * The counts a {@code usage} object reports under the field names {@code input} and {@code
   * output}, each at least 0; empty when either is missing or not a whole number.
   */
  public static Optional<Usage> usage(JsonNode usage, String input, String output) {
    if (!usage.path(input).canConvertToLong() || !usage.path(output).canConvertToLong()) {
      return Optional.empty();
    }
    return Optional.of(
        new Usage(
            Math.max(0, usage.path(input).asLong()), Math.max(0, usage.path(output).asLong())));
  }

  /**
   * The {@code text} strings of an array of content blocks ({@code [{"text": …}, {"image": …}]}),
   * joined; blocks without text add nothing, and anything but an array is the empty string.
   */
  public static String texts(JsonNode blocks) {
    if (!blocks.isArray()) {
      return "";
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode block : blocks) {
      JsonNode value = block.path("text");
      if (value.isTextual()) {
        text.append(value.asText());
      }
    }
    return text.toString();
  }
}
