package io.backpressure.mock;

/**
 * Who sent a call, from its headers: {@code x-tenant} ({@code "unknown"} when absent), {@code
 * x-priority} and {@code x-call-id} (each {@code null} when absent). Each is cut to {@link
 * #MAX_CHARS} characters, so that a record costs a bounded number of bytes whatever the client
 * sends.
 */
record RequestContext(String tenant, String priority, String callId) {

  /** The most characters of one header value kept in a record. */
  static final int MAX_CHARS = 200;

  static RequestContext of(Exchange exchange) {
    String tenant = exchange.header("x-tenant");
    return new RequestContext(
        tenant == null || tenant.isBlank() ? "unknown" : bounded(tenant),
        bounded(exchange.header("x-priority")),
        bounded(exchange.header("x-call-id")));
  }

  private static String bounded(String value) {
    return value == null || value.length() <= MAX_CHARS ? value : value.substring(0, MAX_CHARS);
  }

  /** An estimate of the heap a record holding these values takes, in bytes. */
  long estimatedBytes() {
    return RECORD_OVERHEAD_BYTES + chars(tenant) + chars(priority) + chars(callId);
  }

  /** The record object, its boxed fields and three string headers, roughly, on a 64-bit JVM. */
  private static final long RECORD_OVERHEAD_BYTES = 200;

  private static long chars(String value) {
    return value == null ? 0 : 2L * value.length();
  }
}
