package io.backpressure.eval.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.eval.measure.Stats;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Map;

/**
 * Renders {@code summary.json} (eval/README.md): {@code {"workload", "mode", "repeats", "seed",
 * "duration_s", "scale" (only when the workload was scaled down), "faults" (only when faults were
 * injected), "configs": {"bp": {"http_429_share": {"mean", "ci95", "min", "max"},
 * "ok_rps_by_priority": {"P1": {"mean", "ci95", "min", "max"}}, …}}}}: a metric's mean over the
 * repeats, its 95 % half-width, and the least and greatest single run's value. Keys keep their
 * deterministic insertion order (configurations as run, metrics in the order eval/README.md lists
 * them, classes and tenants in workload order); numbers are rounded to six significant digits; an
 * undefined value (no data, or a half-width from one repeat) is {@code null}. The same summary
 * always renders to the same bytes.
 */
public final class SummaryJson {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
  private static final MathContext DIGITS = new MathContext(6);

  private SummaryJson() {}

  public static String render(Summary summary) {
    ObjectNode root = JSON.createObjectNode();
    root.put("workload", summary.workload());
    root.put("mode", summary.mode());
    root.put("repeats", summary.repeats());
    root.put("seed", summary.seed());
    number(root, "duration_s", summary.durationS());
    if (summary.scale() != 1) {
      number(root, "scale", summary.scale());
    }
    if (!summary.faults().isEmpty()) {
      summary.faults().forEach(root.putArray("faults")::add);
    }
    ObjectNode configs = root.putObject("configs");
    for (Map.Entry<String, Summary.ConfigResult> c : summary.configs().entrySet()) {
      ObjectNode node = configs.putObject(c.getKey());
      for (Map.Entry<String, Summary.Aggregate> m : c.getValue().metrics().entrySet()) {
        if (m.getValue() instanceof Summary.Scalar s) {
          estimate(node.putObject(m.getKey()), s.estimate());
        } else {
          ObjectNode keyed = node.putObject(m.getKey());
          ((Summary.ByKey) m.getValue())
              .estimates()
              .forEach((k, e) -> estimate(keyed.putObject(k), e));
        }
      }
    }
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void estimate(ObjectNode node, Stats.Estimate e) {
    number(node, "mean", e.mean());
    number(node, "ci95", e.ci95());
    number(node, "min", e.min());
    number(node, "max", e.max());
  }

  private static void number(ObjectNode node, String key, double value) {
    if (!Double.isFinite(value)) {
      node.putNull(key);
      return;
    }
    BigDecimal rounded = new BigDecimal(value).round(DIGITS).stripTrailingZeros();
    if (rounded.scale() < 0) {
      rounded = rounded.setScale(0);
    }
    node.put(key, rounded);
  }
}
