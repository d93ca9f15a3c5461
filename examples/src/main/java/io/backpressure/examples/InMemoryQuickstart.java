package io.backpressure.examples;

import io.backpressure.client.GateContext;
import io.backpressure.client.GatedCall;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;
import java.time.Duration;

/** One process, state in memory: each call asks the gate first and waits for its turn when told. */
public final class InMemoryQuickstart {

  /** How many calls the example makes back to back: more than the policy's burst of requests. */
  static final int CALLS = 100;

  public static void main(String[] args) {
    long start = System.nanoTime();
    Policy policy = policy();
    // README call: begin
    Gate gate = InMemoryGate.create(policy);
    GatedCall gated =
        GatedCall.builder(gate)
            .maxWait(Duration.ofSeconds(30)) // a deferred call waits here, in line
            .build();
    for (int i = 0; i < CALLS; i++) {
      String prompt = "Say hello " + i;
      gated.call(
          GateContext.of(i % 2 == 0 ? "acme" : "globex", "P1"), // tenant and priority class
          Cost.requests(1).tokens(prompt.length() / 4.0), // the estimate, debited at admission
          null, // no completion limit
          () -> callModel(prompt), // your LLM client, with its own retries turned off
          tokensUsed -> Cost.requests(1).tokens(tokensUsed)); // what the call really cost
    }
    // README call: end
    long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
    System.out.println(CALLS + " calls made in " + millis + " ms");
  }

  /** The README's policy: a requests cap of 60 a second with a burst of 60. */
  static Policy policy() {
    // README policy: begin
    Policy policy =
        Policy.builder("openai/gpt-4o")
            .requestsPerMinute(3_600) // burst: one second of cap (60 requests)
            .tokensPerMinute(720_000) // per minute: a 60 s safe window by default
            .priority("P1", 0.5)
            .priority("P2", 0.3)
            .priority("P3", 0.2)
            .build();
    // README policy: end
    return policy;
  }

  /** Stands in for the provider call; returns the total tokens its reply reports. */
  private static int callModel(String prompt) {
    return prompt.length() / 4 + 20;
  }
}
