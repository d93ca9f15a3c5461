package io.backpressure.core;

class InMemoryGateTest extends GateConformanceSuite {
  @Override
  protected Gate newGate(Policy policy, ManualClock clock) {
    return InMemoryGate.create(policy, clock);
  }
}
