package io.backpressure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Many targets in one registry: one gate per name, independent state, and no shared lock. */
class InMemoryGatesTest {
  private final ManualClock clock = new ManualClock();
  private final InMemoryGates gates = InMemoryGates.create(clock);

  private static Policy policy(String target, double perSecond, double burst) {
    return Policy.builder(target).dimension("requests", perSecond, burst).priority("P1", 1).build();
  }

  @Test
  void aTargetIsRegisteredOnce_andFoundByName() {
    InMemoryGate first = gates.gate(policy("a/model", 10, 2));
    assertThat(gates.gate(policy("a/model", 99, 9))).isSameAs(first);
    assertThat(gates.gate("a/model")).isSameAs(first);
    assertThat(first.policy().dimensions().get(0).capPerSecond()).isEqualTo(10);
    assertThat(gates.targets()).containsExactly("a/model");
    assertThatThrownBy(() -> gates.gate("b/model"))
        .isInstanceOf(NoSuchElementException.class)
        .hasMessageContaining("'b/model' is not registered");
  }

  @Test
  void targetsKeepSeparateBuckets() {
    Gate a = gates.gate(policy("a/model", 1, 2));
    Gate b = gates.gate(policy("b/model", 1, 3));
    int admittedA = burst(a);
    int admittedB = burst(b);
    assertThat(admittedA)
        .as("a admits what a lone gate of its policy admits")
        .isEqualTo(burst(InMemoryGate.create(policy("a/model", 1, 2), clock)))
        .isPositive();
    assertThat(admittedB)
        .as("b admits what a lone gate admits, untouched by a's calls")
        .isEqualTo(burst(InMemoryGate.create(policy("b/model", 1, 3), clock)))
        .isGreaterThan(admittedA);
  }

  /** How many of ten calls of ten tenants at one instant {@code gate} admits. */
  private static int burst(Gate gate) {
    int admitted = 0;
    for (int i = 0; i < 10; i++) {
      admitted += gate.admit("t" + i, "P1", Cost.requests(1)) instanceof Admission.Admitted ? 1 : 0;
    }
    return admitted;
  }

  @Test
  void aCallOnOneTargetDoesNotWaitForAnotherTargetsLock() throws Exception {
    InMemoryGate a = gates.gate(policy("a/model", 1000, 1000));
    InMemoryGate b = gates.gate(policy("b/model", 1000, 1000));
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    // The gate's lock is its monitor (see InMemoryGate): hold a's while b is asked.
    Thread holder =
        new Thread(
            () -> {
              synchronized (a) {
                held.countDown();
                try {
                  done.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    holder.start();
    held.await();
    CompletableFuture<Admission> onB =
        CompletableFuture.supplyAsync(() -> b.admit("t", "P1", Cost.requests(1)));
    CompletableFuture<Admission> onA =
        CompletableFuture.supplyAsync(() -> a.admit("t", "P1", Cost.requests(1)));
    try {
      assertThat(onB.get(30, TimeUnit.SECONDS)).isInstanceOf(Admission.Admitted.class);
      assertThat(onA).as("a's call waits for a's lock").isNotDone();
    } finally {
      done.countDown();
      holder.join();
    }
    assertThat(onA.get(30, TimeUnit.SECONDS)).isInstanceOf(Admission.Admitted.class);
  }
}
