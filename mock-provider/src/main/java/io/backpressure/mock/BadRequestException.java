package io.backpressure.mock;

/**
 * A request the server answers with 400: {@code message} says what is wrong and what is allowed,
 * {@code param} names the offending field (or is {@code null}), {@code code} is the provider's
 * machine-readable reason (or {@code null}).
 */
final class BadRequestException extends Exception {

  private static final long serialVersionUID = 1L;

  private final String param;
  private final String code;

  BadRequestException(String message, String param, String code) {
    super(message, null, false, false);
    this.param = param;
    this.code = code;
  }

  String param() {
    return param;
  }

  String code() {
    return code;
  }

  static BadRequestException missing(String param) {
    return new BadRequestException(
        "Missing required parameter: '" + param + "'.", param, "missing_required_parameter");
  }

  static BadRequestException invalidType(String param, String expected) {
    return new BadRequestException(
        "Invalid type for '" + param + "': expected " + expected + ".", param, "invalid_type");
  }
}
