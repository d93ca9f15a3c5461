package io.backpressure.core;

/** Range checks for policy values; each failure names the field and the allowed range. */
final class PolicyChecks {
  static final double MAX_AMOUNT = 1e15;

  private PolicyChecks() {}

  static void positive(String field, double value) {
    if (!(value > 0) || !(value <= MAX_AMOUNT)) {
      throw new InvalidPolicyException(
          field, field + " must be a number in (0, " + (long) MAX_AMOUNT + "], got " + value);
    }
  }

  static void name(String field, String value) {
    if (value == null || value.isBlank() || value.length() > 128) {
      throw new InvalidPolicyException(
          field,
          field + " must be a non-empty name of at most 128 characters, got '" + value + "'");
    }
  }
}
