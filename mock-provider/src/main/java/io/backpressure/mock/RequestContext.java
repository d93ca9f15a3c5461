package io.backpressure.mock;

import com.sun.net.httpserver.Headers;

/**
 * Who sent a call, from its headers: {@code x-tenant} ({@code "unknown"} when absent), {@code
 * x-priority} and {@code x-call-id} (each {@code null} when absent).
 */
record RequestContext(String tenant, String priority, String callId) {

  static RequestContext of(Headers headers) {
    String tenant = headers.getFirst("x-tenant");
    return new RequestContext(
        tenant == null || tenant.isBlank() ? "unknown" : tenant,
        headers.getFirst("x-priority"),
        headers.getFirst("x-call-id"));
  }
}
