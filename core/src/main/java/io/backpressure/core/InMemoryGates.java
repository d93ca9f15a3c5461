package io.backpressure.core;

import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory gates of many targets (one per model or deployment) in one process, handed out by
 * name. Each target has its own {@link InMemoryGate} and so its own lock: calls for different
 * targets never wait for each other, and a lookup of a known target is a lock-free map read.
 *
 * <pre>{@code
 * InMemoryGates gates = InMemoryGates.create();
 * Gate gpt = gates.gate(gptPolicy);          // registers openai/gpt-4o
 * Gate same = gates.gate("openai/gpt-4o");   // the same gate
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class InMemoryGates {
  private final Ticker clock;
  private final Map<String, InMemoryGate> gates = new ConcurrentHashMap<>();

  private InMemoryGates(Ticker clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** A registry whose gates run on the system clock. */
  public static InMemoryGates create() {
    return new InMemoryGates(Ticker.system());
  }

  /** A registry whose gates run on {@code clock} (virtual time in tests and the simulator). */
  public static InMemoryGates create(Ticker clock) {
    return new InMemoryGates(clock);
  }

  /**
   * The gate of {@code policy}'s target, created on first use; later calls return the same gate
   * whatever policy they pass (change a live policy with {@link InMemoryGate#updatePolicy}).
   */
  public InMemoryGate gate(Policy policy) {
    Objects.requireNonNull(policy, "policy");
    InMemoryGate known = gates.get(policy.target());
    return known != null
        ? known
        : gates.computeIfAbsent(policy.target(), t -> InMemoryGate.create(policy, clock));
  }

  /** The gate of a registered target. @throws NoSuchElementException if it is not registered */
  public InMemoryGate gate(String target) {
    InMemoryGate gate = gates.get(target);
    if (gate == null) {
      throw new NoSuchElementException(
          "target '" + target + "' is not registered; call gate(policy) first");
    }
    return gate;
  }

  /** The registered targets. */
  public Set<String> targets() {
    return Set.copyOf(gates.keySet());
  }
}
