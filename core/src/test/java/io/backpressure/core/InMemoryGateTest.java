package io.backpressure.core;

class InMemoryGateTest extends GateConformanceSuite {
  @Override
  protected Gate newGate(Policy policy, ManualClock clock) {
    return InMemoryGate.create(policy, clock, clock);
  }

  @Override
  protected GateLevels levels(Gate gate) {
    return ((InMemoryGate) gate).levels();
  }

  @Override
  protected QueueState queueState(Gate gate, String tenant, String priority) {
    return ((InMemoryGate) gate).queueState(tenant, priority).orElse(null);
  }

  @Override
  protected QuotaAdmin quotaAdmin(Gate gate) {
    return (InMemoryGate) gate;
  }

  @Override
  protected long expiredLeases(Gate gate) {
    return ((InMemoryGate) gate).expiredLeases();
  }

  @Override
  protected long concurrencyLimit(Gate gate) {
    return ((InMemoryGate) gate).concurrencyLimit();
  }

  @Override
  protected void updatePolicy(Gate gate, Policy policy) {
    ((InMemoryGate) gate).updatePolicy(policy);
  }
}
