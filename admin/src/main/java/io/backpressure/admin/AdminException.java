package io.backpressure.admin;

/**
 * Why an admin command failed, with the exit code a script sees and the field or option at fault.
 */
final class AdminException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;
  private final String field;

  AdminException(int exitCode, String field, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
    this.field = field;
  }

  /** Bad input: a value out of range, a malformed file, a name the policy does not have. */
  static AdminException invalid(String field, String message) {
    return new AdminException(AdminCommand.INVALID, field, message, null);
  }

  int exitCode() {
    return exitCode;
  }

  /** The field or option at fault, or null when none is. */
  String field() {
    return field;
  }
}
