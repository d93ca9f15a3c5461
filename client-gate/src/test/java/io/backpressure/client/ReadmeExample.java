package io.backpressure.client;

import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

/** The examples of this module's README, compiled and run by {@code ReadmeExampleTest}. */
final class ReadmeExample {

  private ReadmeExample() {}

  static ModelRoutes routes(Function<String, Gate> gateOf) {
    // example:start routes
    ModelRoutes routes =
        ModelRoutes.fromYaml(
            """
        routes:
          gpt-4o-mini*: openai/gpt-4o-mini      # every dated gpt-4o-mini
          gpt-4o*: openai/gpt-4o
          my-eu-deployment: azure/eu             # an exact deployment name
        default: openai/other
        """,
            gateOf); // builds each target's gate once
    // example:end routes
    return routes;
  }

  static String outsideTemporal(Gate gate, Supplier<String> callTheProvider) {
    // example:start waiting
    GatedCall gated =
        GatedCall.builder(gate)
            .maxWait(Duration.ofSeconds(30)) // a deferred call waits here, in line
            .build();
    // ExpiredException only when its turn would come after 30 s; a 429 becomes such a wait too
    return gated.call(
        GateContext.of("acme", "P2"),
        Cost.requests(1).tokens(500), // the estimate; the release settles it
        null, // no completion limit
        callTheProvider::get,
        reply -> null); // no usage read: the estimate stands
    // example:end waiting
  }
}
