package io.backpressure.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.backpressure.core.Policy;
import io.backpressure.policy.yaml.PolicyYaml;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;

/**
 * The fields where two policies differ, as dotted paths of the policy YAML format with both values
 * ({@code dimensions.requests.per_second: stored 5.0, configured 10.0}). Compares the policies'
 * YAML renderings, so every key of the format is covered, including ones added later. Stateless.
 */
final class PolicyDiff {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private PolicyDiff() {}

  /** The differences, in path order; empty when the policies are equal. */
  static List<String> between(Policy stored, Policy configured) {
    List<String> out = new ArrayList<>();
    if (!stored.equals(configured)) {
      diff("", tree(stored), tree(configured), out);
      if (out.isEmpty()) {
        out.add("(the policies differ in a value their YAML rounds alike)");
      }
    }
    return out;
  }

  private static JsonNode tree(Policy policy) {
    try {
      return YAML.readTree(PolicyYaml.render(policy));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a policy's own YAML did not parse", e);
    }
  }

  private static void diff(String path, JsonNode a, JsonNode b, List<String> out) {
    if (a != null && b != null && a.isObject() && b.isObject()) {
      TreeSet<String> keys = new TreeSet<>();
      a.fieldNames().forEachRemaining(keys::add);
      for (Iterator<String> it = b.fieldNames(); it.hasNext(); ) {
        keys.add(it.next());
      }
      for (String key : keys) {
        diff(path.isEmpty() ? key : path + "." + key, a.get(key), b.get(key), out);
      }
      return;
    }
    if (a == null ? b != null : !a.equals(b)) {
      out.add(path + ": stored " + text(a) + ", configured " + text(b));
    }
  }

  private static String text(JsonNode node) {
    return node == null ? "(none)" : node.isValueNode() ? node.asText() : node.toString();
  }
}
