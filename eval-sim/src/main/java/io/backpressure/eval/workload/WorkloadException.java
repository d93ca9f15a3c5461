package io.backpressure.eval.workload;

/** A workload file is malformed or a value is out of range; {@link #field()} names the field. */
final class WorkloadException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final String field;

  WorkloadException(String field, String message) {
    super(message);
    this.field = field;
  }

  /** The dotted path of the offending field, e.g. {@code tenants[2].workflows}. */
  String field() {
    return field;
  }
}
