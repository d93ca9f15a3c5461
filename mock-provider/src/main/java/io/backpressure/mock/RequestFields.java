package io.backpressure.mock;

import com.fasterxml.jackson.databind.JsonNode;

/** Reading and checking the fields that both wire formats share. */
final class RequestFields {

  /** The largest {@code max_tokens} accepted; anything above is answered with 400. */
  static final long MAX_TOKENS_LIMIT = 1_000_000;

  private RequestFields() {}

  /** The non-blank string field {@code name}. */
  static String requiredText(JsonNode root, String name) throws BadRequestException {
    JsonNode node = root.get(name);
    if (node == null || node.isNull()) {
      throw BadRequestException.missing(name);
    }
    if (!node.isTextual() || node.asText().isBlank()) {
      throw BadRequestException.invalidType(name, "a non-empty string");
    }
    return node.asText();
  }

  /** The non-empty array field {@code name}. */
  static JsonNode requiredArray(JsonNode root, String name) throws BadRequestException {
    JsonNode node = root.get(name);
    if (node == null || node.isNull()) {
      throw BadRequestException.missing(name);
    }
    if (!node.isArray()) {
      throw BadRequestException.invalidType(name, "an array");
    }
    if (node.isEmpty()) {
      throw new BadRequestException(
          "Invalid '" + name + "': empty array. Expected an array with minimum length 1.",
          name,
          "empty_array");
    }
    return node;
  }

  /**
   * The integer field {@code name} in {@code [1, MAX_TOKENS_LIMIT]}, or {@code null} when absent or
   * JSON null.
   */
  static Long tokenLimit(JsonNode root, String name) throws BadRequestException {
    JsonNode node = root.get(name);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw BadRequestException.invalidType(name, "an integer");
    }
    long value = node.asLong();
    if (value < 1) {
      throw new BadRequestException(
          "Invalid '"
              + name
              + "': integer below minimum value. Expected a value >= 1, but got "
              + value
              + " instead.",
          name,
          "integer_below_min_value");
    }
    if (value > MAX_TOKENS_LIMIT) {
      throw new BadRequestException(
          "Invalid '"
              + name
              + "': integer above maximum value. Expected a value <= "
              + MAX_TOKENS_LIMIT
              + ", but got "
              + value
              + " instead.",
          name,
          "integer_above_max_value");
    }
    return value;
  }

  /**
   * Characters of text in a message's {@code content}: a string, an array of parts whose {@code
   * text} fields count (other parts count nothing), or null.
   */
  static long contentChars(JsonNode content, String param) throws BadRequestException {
    if (content == null || content.isNull()) {
      return 0;
    }
    if (content.isTextual()) {
      return content.asText().length();
    }
    if (!content.isArray()) {
      throw BadRequestException.invalidType(param, "a string or an array of content parts");
    }
    long chars = 0;
    for (int i = 0; i < content.size(); i++) {
      JsonNode part = content.get(i);
      if (!part.isObject()) {
        throw BadRequestException.invalidType(param + "[" + i + "]", "an object");
      }
      JsonNode text = part.get("text");
      if (text != null && !text.isNull()) {
        if (!text.isTextual()) {
          throw BadRequestException.invalidType(param + "[" + i + "].text", "a string");
        }
        chars += text.asText().length();
      }
    }
    return chars;
  }

  /** Characters of text over all {@code messages}, each an object with a string {@code role}. */
  static long messagesChars(JsonNode messages) throws BadRequestException {
    long chars = 0;
    for (int i = 0; i < messages.size(); i++) {
      JsonNode message = messages.get(i);
      String param = "messages[" + i + "]";
      if (!message.isObject()) {
        throw BadRequestException.invalidType(param, "an object");
      }
      JsonNode role = message.get("role");
      if (role == null || role.isNull()) {
        throw BadRequestException.missing(param + ".role");
      }
      if (!role.isTextual()) {
        throw BadRequestException.invalidType(param + ".role", "a string");
      }
      chars += contentChars(message.get("content"), param + ".content");
    }
    return chars;
  }

  /** The boolean field {@code name}; {@code false} when absent or JSON null. */
  static boolean optionalBoolean(JsonNode root, String name) throws BadRequestException {
    return optionalBoolean(root, name, "");
  }

  /**
   * The boolean field {@code name} of an object found at {@code prefix} (for the messages: {@code
   * "stream_options."}); {@code false} when absent or JSON null.
   */
  static boolean optionalBoolean(JsonNode root, String name, String prefix)
      throws BadRequestException {
    JsonNode node = root.get(name);
    if (node == null || node.isNull()) {
      return false;
    }
    if (!node.isBoolean()) {
      throw BadRequestException.invalidType(prefix + name, "a boolean");
    }
    return node.booleanValue();
  }
}
