package io.backpressure.core;

/** A policy value is out of range or malformed. {@link #field()} names the offending field. */
public final class InvalidPolicyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public InvalidPolicyException(String field, String message) {
    super(message);
    this.field = field;
  }

  public InvalidPolicyException(String field, String message, Throwable cause) {
    super(message, cause);
    this.field = field;
  }

  /** The dotted path of the field at fault, e.g. {@code dimensions.tokens.burst}. */
  public String field() {
    return field;
  }
}
