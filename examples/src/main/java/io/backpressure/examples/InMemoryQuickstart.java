package io.backpressure.examples;

import io.backpressure.core.Admission;
import io.backpressure.core.AdmissionRequest;
import io.backpressure.core.Cost;
import io.backpressure.core.Gate;
import io.backpressure.core.InMemoryGate;
import io.backpressure.core.Policy;

/** One process, state in memory: ask the gate before each call, wait when told, release after. */
public final class InMemoryQuickstart {

  public static void main(String[] args) throws InterruptedException {
    // README policy: begin
    Policy policy =
        Policy.builder("openai/gpt-4o")
            .requestsPerMinute(3_600) // burst: one second of cap (60 requests)
            .tokensPerMinute(720_000) // per minute: a 60 s safe window by default
            .priority("P1", 0.5)
            .priority("P2", 0.3)
            .priority("P3", 0.2)
            .build();
    Gate gate = InMemoryGate.create(policy);
    // README policy: end
    int waited = 0;
    for (int i = 0; i < 100; i++) {
      waited += chat(gate, i % 2 == 0 ? "acme" : "globex", "P1", "Say hello " + i);
    }
    System.out.println("100 calls made, " + waited + " deferrals waited out");
  }

  /** Makes one gated call and returns how many times the gate deferred it. */
  static int chat(Gate gate, String tenant, String priority, String prompt)
      throws InterruptedException {
    AdmissionRequest request =
        AdmissionRequest.of(tenant, priority, Cost.requests(1).tokens(prompt.length() / 4.0));
    // README call: begin
    for (int deferrals = 0; ; deferrals++) {
      Admission admission = gate.admit(request);
      if (admission instanceof Admission.Admitted admitted) {
        int tokensUsed = callModel(prompt); // your LLM client, with its own retries turned off
        gate.release(admitted.grant(), Cost.requests(1).tokens(tokensUsed));
        return deferrals;
      } else if (admission instanceof Admission.Deferred deferred) {
        Thread.sleep(deferred.retryAfter().toMillis()); // on Temporal: a durable timer instead
        request = request.withBooking(deferred.booking()); // keeps the call's place in line
      } else if (admission instanceof Admission.Expired expired) {
        throw new IllegalStateException(expired.message());
      } else if (admission instanceof Admission.Rejected rejected) {
        throw new IllegalArgumentException(rejected.message());
      }
    }
    // README call: end
  }

  /** Stands in for the provider call; returns the total tokens its reply reports. */
  private static int callModel(String prompt) {
    return prompt.length() / 4 + 20;
  }
}
