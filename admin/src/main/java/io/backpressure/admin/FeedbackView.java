package io.backpressure.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.backpressure.core.feedback.FeedbackPolicy;
import io.backpressure.core.feedback.FeedbackState;

/** What a target learned from its provider's answers, as a text section and as JSON. */
final class FeedbackView {
  private FeedbackView() {}

  /**
   * {@code enabled}, {@code ramp_factor}, {@code outage}, the event counts, and per dimension
   * {@code configured}, {@code effective}, {@code applied}, {@code provider_limit} (null before a
   * limit header), {@code outside} (all per second), {@code cooldown_s} and {@code spent_s} (how
   * long the provider's window stays spent, as its last 429 said).
   */
  static ObjectNode json(FeedbackPolicy policy, FeedbackState state) {
    ObjectNode node = Output.JSON.createObjectNode();
    node.put("enabled", policy.enabled());
    node.put("ramp_factor", state.rampMultiplier());
    node.put("outage", state.outage());
    node.put("signals", state.signals());
    node.put("decreases", state.decreases());
    node.put("adoptions", state.adoptions());
    node.put("ramps", state.ramps());
    node.put("ignored", state.ignored());
    ObjectNode dims = node.putObject("dimensions");
    state
        .dimensions()
        .forEach(
            (name, d) -> {
              ObjectNode dim = dims.putObject(name);
              dim.put("configured", d.configured());
              dim.put("effective", d.effective());
              dim.put("applied", d.applied());
              if (Double.isNaN(d.limit())) {
                dim.putNull("provider_limit");
              } else {
                dim.put("provider_limit", d.limit());
              }
              dim.put("outside", d.outside());
              dim.put("cooldown_s", d.cooldownSeconds());
              dim.put("spent_s", d.spentSeconds());
            });
    return node;
  }

  /** The feedback section of {@code admin show}'s text report. */
  static String text(FeedbackPolicy policy, FeedbackState state) {
    StringBuilder out = new StringBuilder("\n");
    out.append("feedback         ")
        .append(policy.enabled() ? "on" : "off")
        .append(" (period ")
        .append(PolicyView.duration(policy.period()))
        .append(", decrease ")
        .append(Output.number(policy.decrease()))
        .append(", increase ")
        .append(Output.number(policy.increase()))
        .append("·cap/s")
        .append(", floor ")
        .append(Output.number(policy.floor()))
        .append(", headroom ")
        .append(Output.number(policy.headroom()))
        .append(", ramp ")
        .append(Output.number(policy.rampFraction()))
        .append(" over ")
        .append(PolicyView.duration(policy.rampDuration()))
        .append(")\n");
    out.append(
        String.format(
            "%-16s %12s %12s %12s %16s %12s %10s %10s%n",
            "dimension",
            "cap/s",
            "effective/s",
            "applied/s",
            "provider limit/s",
            "outside/s",
            "cooldown",
            "spent"));
    state
        .dimensions()
        .forEach(
            (name, d) ->
                out.append(
                    String.format(
                        "%-16s %12s %12s %12s %16s %12s %10s %10s%n",
                        name,
                        Output.number(d.configured()),
                        Output.number(d.effective()),
                        Output.number(d.applied()),
                        Double.isNaN(d.limit()) ? "-" : Output.number(d.limit()),
                        Output.number(d.outside()),
                        seconds(d.cooldownSeconds()),
                        seconds(d.spentSeconds()))));
    out.append("learning         ramp factor ")
        .append(Output.number(state.rampMultiplier()))
        .append(state.outage() ? ", provider outage" : "")
        .append("; answers ")
        .append(state.signals())
        .append(", decreases ")
        .append(state.decreases())
        .append(", limits adopted ")
        .append(state.adoptions())
        .append(", ramps ")
        .append(state.ramps())
        .append(", values ignored ")
        .append(state.ignored())
        .append('\n');
    return out.toString();
  }

  /** A time left, to a tenth of a second; "-" when none is. */
  private static String seconds(double seconds) {
    return seconds > 0 ? String.format(java.util.Locale.ROOT, "%.1fs", seconds) : "-";
  }
}
