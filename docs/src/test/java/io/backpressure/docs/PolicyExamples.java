package io.backpressure.docs;

import io.backpressure.core.Dimension;
import io.backpressure.core.Limits;
import io.backpressure.core.Policy;
import io.backpressure.core.PriorityMode;
import io.backpressure.policy.yaml.PolicyYaml;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** The examples of {@code docs/policies.md}, run by {@link PolicyExamplesTest}. */
final class PolicyExamples {
  private PolicyExamples() {}

  static Policy inCode() {
    // builder: begin
    Policy policy =
        Policy.builder("openai/gpt-4o")
            .requestsPerMinute(3_600) // per minute: the safe window is the provider's minute
            .tokensPerMinute(720_000)
            .priority("P1", 0.5) // classes, highest first, with their weights
            .priority("P2", 0.3)
            .priority("P3", 0.2, Duration.ofSeconds(30)) // P3 waits 30 s at most, then expires
            .priorityMode(PriorityMode.SHARED) // STRICT: a lower class gets only the leftovers
            .tenantWeight("acme", 2.0) // twice the share of a default tenant within its class
            .reservation(true, 1_024) // debit input + max_tokens at admission, refund after
            .build();
    // builder: end
    return policy;
  }

  static Policy withLimits() {
    // limits: begin
    Policy policy =
        Policy.builder("openai/gpt-4o")
            .requestsPerMinute(3_600)
            .tokensPerMinute(720_000)
            .priority("P1", 0.7)
            .priority("P2", 0.3)
            .perDay(Dimension.TOKENS, 200_000_000) // per calendar day in the time zone
            .timeZone("America/Los_Angeles") // of every per_day, per_month and quota; default UTC
            .concurrency(64, Duration.ofSeconds(60)) // calls in flight, each lease for 60 s at most
            .classConcurrency("P2", 16) // P2's calls in flight, whatever their tenants
            .defaultTenantConcurrency(8) // each tenant's calls in flight
            .price(2.50, 10.00) // per million input and output tokens, for quotas in currency
            .defaultTenantQuota(Limits.Quota.tokensPerDay(1_000_000)) // each tenant without its own
            .tenantQuota("acme", Limits.Quota.currencyPerMonth(50))
            .classQuota("P2", Limits.Quota.tokensPerDay(50_000_000)) // shared by P2's tenants
            .build();
    // limits: end
    return policy;
  }

  static Policy withAdaptiveConcurrency() {
    // adaptive: begin
    Policy policy =
        Policy.builder("anthropic/claude-sonnet")
            .requestsPerMinute(4_000)
            .tokensPerMinute(400_000)
            .priority("P1", 1)
            // calls in flight: from 4, +1 per call back within 5 s, halved on a slower call or an
            // overload answer (a timeout, a 5xx, a 529), never above 256
            .adaptiveConcurrency(4, 256, Duration.ofSeconds(5))
            .build();
    // adaptive: end
    return policy;
  }

  static Policy fromFile(Path file) throws IOException {
    // yaml: begin
    Policy policy = PolicyYaml.read(file); // module backpressure-policy-yaml
    String written = PolicyYaml.render(policy); // reads back to an equal policy
    // yaml: end
    return PolicyYaml.parse(written);
  }

  static Policy hotUpdate(Policy policy) {
    // update: begin
    Policy next = policy.withPriorityWeight("P3", 0.1).withTenantWeight("acme", 3.0);
    // update: end
    return next;
  }
}
