package io.backpressure.mock;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.mock.limit.Caps;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;

/**
 * The endpoints that change a running provider, answered only to clients on a loopback address (403
 * otherwise, whatever address the server is bound to):
 *
 * <ul>
 *   <li>{@code GET /admin/caps}, {@code POST /admin/caps} with {@code {"requests_per_s": R,
 *       "tokens_per_s": T, "requests_per_day": N, "tokens_per_day": N}}: the caps now, as rates per
 *       second ({@code null} when not capped) and per calendar day ({@code null} when not capped;
 *       the day's zone, {@code day_zone}, is shown and set at start only), and new ones from now on
 *       (a field left out stays as it is; a per-day cap set to {@code null} is removed, what the
 *       day has used stays counted);
 *   <li>{@code GET /admin/faults}, {@code POST /admin/faults} with {@code {"errors": B,
 *       "latency_factor": F, "overloaded": B, "rate_limited_mid_stream": B}}: the faults switched
 *       on (see {@link Faults}); a field left out stays as it is.
 * </ul>
 *
 * <p>Input is strict: a JSON object of at most {@link #MAX_BODY_BYTES}, with known fields only,
 * each given once, of the right JSON type (a number is not a string, a boolean is not a number) and
 * in range. Anything else is answered 400 naming the field, and changes nothing. Answers carry the
 * state after the request.
 */
final class ControlEndpoint implements Endpoint {

  static final String CAPS = "/admin/caps";
  static final String FAULTS = "/admin/faults";

  /** The largest body accepted. */
  static final int MAX_BODY_BYTES = 4096;

  private static final ObjectMapper STRICT =
      new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final List<String> CAPS_FIELDS =
      List.of("requests_per_s", "tokens_per_s", "requests_per_day", "tokens_per_day");
  private static final List<String> FAULTS_FIELDS =
      List.of("errors", "latency_factor", "overloaded", "rate_limited_mid_stream");

  private final ProviderState state;
  private final Dialect errors = new OpenAiDialect();

  ControlEndpoint(ProviderState state) {
    this.state = state;
  }

  @Override
  public void serve(Exchange exchange) {
    if (!exchange.fromLoopback()) {
      exchange.sendJson(
          403,
          errors.clientError(
              "The admin endpoints answer loopback clients only.", null, "forbidden"));
      return;
    }
    boolean caps = exchange.path().equals(CAPS);
    if (exchange.method().equals("GET")) {
      exchange.sendJson(
          200, caps ? capsJson(state.caps(), state.dailyCaps()) : faultsJson(state.faults()));
      return;
    }
    if (Routes.refusedMethod(exchange, "POST", errors)) {
      return;
    }
    exchange.readBody(
        MAX_BODY_BYTES,
        (body, unreadable) -> {
          try {
            if (unreadable != null) {
              throw unreadable;
            }
            JsonNode root = parse(body, caps ? CAPS_FIELDS : FAULTS_FIELDS);
            exchange.sendJson(200, caps ? setCaps(root) : setFaults(root));
          } catch (BadRequestException e) {
            exchange.sendJson(e.status(), errors.clientError(e.getMessage(), e.param(), e.code()));
          }
        });
  }

  private ObjectNode setCaps(JsonNode root) throws BadRequestException {
    Caps caps;
    DailyCaps now = state.dailyCaps();
    Long requestsPerDay = dailyCap(root, "requests_per_day", now.requests());
    Long tokensPerDay = dailyCap(root, "tokens_per_day", now.tokens());
    DailyCaps daily;
    try {
      daily = new DailyCaps(requestsPerDay, tokensPerDay, now.zone());
      caps = new Caps(number(root, "requests_per_s"), number(root, "tokens_per_s"));
      if (caps.requestsPerS() != null || caps.tokensPerS() != null) {
        state.setCaps(caps);
      }
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(e.getMessage(), null, "invalid_value");
    }
    state.setDailyCaps(daily);
    return capsJson(state.caps(), state.dailyCaps());
  }

  /**
   * The per-day cap {@code name}: {@code current} when left out, {@code null} when given as null,
   * else a whole number.
   */
  private static Long dailyCap(JsonNode root, String name, Long current)
      throws BadRequestException {
    JsonNode node = root.get(name);
    if (node == null) {
      return current;
    }
    if (node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw BadRequestException.invalidType(name, "a whole number or null");
    }
    return node.longValue();
  }

  private ObjectNode setFaults(JsonNode root) throws BadRequestException {
    Faults now = state.faults();
    Boolean errors = bool(root, "errors");
    Boolean overloaded = bool(root, "overloaded");
    Boolean rateLimitedMidStream = bool(root, "rate_limited_mid_stream");
    Double factor = number(root, "latency_factor");
    Faults faults;
    try {
      faults =
          new Faults(
              errors == null ? now.errors() : errors,
              factor == null ? now.latencyFactor() : factor,
              overloaded == null ? now.overloaded() : overloaded,
              rateLimitedMidStream == null ? now.rateLimitedMidStream() : rateLimitedMidStream);
    } catch (IllegalArgumentException e) {
      throw new BadRequestException(e.getMessage(), "latency_factor", "invalid_value");
    }
    state.setFaults(faults);
    return faultsJson(faults);
  }

  /** The boolean field {@code name}, or {@code null} when left out. */
  private static Boolean bool(JsonNode root, String name) throws BadRequestException {
    JsonNode node = root.get(name);
    if (node == null) {
      return null;
    }
    if (!node.isBoolean()) {
      throw BadRequestException.invalidType(name, "a boolean");
    }
    return node.booleanValue();
  }

  /** The number field {@code name}, or {@code null} when left out. */
  private static Double number(JsonNode root, String name) throws BadRequestException {
    JsonNode node = root.get(name);
    if (node == null) {
      return null;
    }
    if (!node.isNumber()) {
      throw BadRequestException.invalidType(name, "a number");
    }
    return node.doubleValue();
  }

  private static JsonNode parse(byte[] body, List<String> fields) throws BadRequestException {
    JsonNode root;
    try {
      root = STRICT.readTree(body);
    } catch (JsonProcessingException e) {
      throw new BadRequestException(
          "Invalid JSON body: " + e.getOriginalMessage(), null, "invalid_json");
    } catch (IOException e) {
      throw new BadRequestException("Unreadable JSON body.", null, "invalid_json");
    }
    if (root == null || !root.isObject() || root.isEmpty()) {
      throw new BadRequestException(
          "The body must be a JSON object with one or more of " + fields + ".",
          null,
          "invalid_json");
    }
    for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!fields.contains(name)) {
        throw new BadRequestException(
            "Unknown field '" + name + "': expected one or more of " + fields + ".",
            name,
            "unknown_parameter");
      }
    }
    return root;
  }

  private static ObjectNode capsJson(Caps caps, DailyCaps daily) {
    ObjectNode root = NODES.objectNode();
    putRate(root, "requests_per_s", caps.requestsPerS());
    putRate(root, "tokens_per_s", caps.tokensPerS());
    root.put("requests_per_day", daily.requests());
    root.put("tokens_per_day", daily.tokens());
    root.put("day_zone", daily.zone().getId());
    return root;
  }

  private static void putRate(ObjectNode root, String name, Double rate) {
    if (rate == null) {
      root.putNull(name);
    } else {
      root.put(name, rate);
    }
  }

  private static ObjectNode faultsJson(Faults faults) {
    return NODES
        .objectNode()
        .put("errors", faults.errors())
        .put("latency_factor", faults.latencyFactor())
        .put("overloaded", faults.overloaded())
        .put("rate_limited_mid_stream", faults.rateLimitedMidStream());
  }
}
