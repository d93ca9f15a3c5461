package io.backpressure.mock;

/**
 * A request the server refuses, with 400 unless another client-error status is given (413 for a
 * body over the size limit): {@code message} says what is wrong and what is allowed, {@code param}
 * names the offending field (or is {@code null}), {@code code} is the provider's machine-readable
 * reason (or {@code null}).
 */
final class BadRequestException extends Exception {

  private static final long serialVersionUID = 1L;

  private final String param;
  private final String code;
  private final int status;

  BadRequestException(String message, String param, String code) {
    this(message, param, code, 400);
  }

  BadRequestException(String message, String param, String code, int status) {
    super(message, null, false, false);
    this.param = param;
    this.code = code;
    this.status = status;
  }

  /** The HTTP status of the answer: 400, or 413 for a body over the limit. */
  int status() {
    return status;
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
