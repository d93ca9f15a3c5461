package io.backpressure.client;

import io.backpressure.core.Gate;
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

  static <T> T outsideTemporal(Supplier<T> call) throws InterruptedException {
    // example:start retry
    GateContext context = GateContext.of("acme", "P2");
    while (true) {
      try (GateContext.Scope scope = context.open()) {
        return call.get(); // e.g. client.chat().completions()…
      } catch (DeferredException deferred) {
        Thread.sleep(deferred.retryAfter().toMillis()); // Δ; not sent, nothing debited
        context = context.withBooking(deferred.booking()); // keep the call's place in line
      }
    }
    // example:end retry
  }
}
