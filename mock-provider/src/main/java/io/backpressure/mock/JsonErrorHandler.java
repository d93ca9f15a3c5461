package io.backpressure.mock;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers the errors Jetty raises itself, before any endpoint sees the request (headers over the
 * size limit: 431; a malformed request line or header: 400; a URI too long: 414), in OpenAI's JSON
 * error shape rather than Jetty's HTML page.
 */
final class JsonErrorHandler extends ErrorHandler {

  private final int maxHeaderBytes;
  private final Dialect errors = new OpenAiDialect();

  JsonErrorHandler(int maxHeaderBytes) {
    this.maxHeaderBytes = maxHeaderBytes;
  }

  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int code,
      String message,
      Throwable cause,
      Callback callback) {
    ObjectNode body =
        code == 431
            ? errors.clientError(
                "Request header fields too large: the limit is " + maxHeaderBytes + " bytes.",
                null,
                "request_header_fields_too_large")
            : errors.clientError(message == null ? "HTTP " + code : message, null, "http_" + code);
    if (code >= 500) {
      body.with("error").put("type", "server_error");
    }
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.write(
        true, ByteBuffer.wrap(body.toString().getBytes(StandardCharsets.UTF_8)), callback);
  }
}
