package io.backpressure.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What one call consumes of each capped dimension, for example {@code requests=1, tokens=420}.
 *
 * <p>A dimension the cost does not mention counts as zero. Amounts are not checked here: the gate
 * checks them against its policy and answers a bad amount with {@link Admission.Rejected}, so a
 * cost can be built from untrusted input without throwing.
 *
 * @param amounts amount per dimension name, in the dimension's units (requests, tokens, …)
 */
public record Cost(Map<String, Double> amounts) {

  public Cost {
    Objects.requireNonNull(amounts, "amounts");
    amounts = Map.copyOf(amounts);
  }

  /** One request and {@code tokens} tokens: the usual cost of one LLM call. */
  public static Cost of(double requests, double tokens) {
    return new Cost(Map.of(Dimension.REQUESTS, requests, Dimension.TOKENS, tokens));
  }

  /** One request and nothing else. */
  public static Cost oneRequest() {
    return new Cost(Map.of(Dimension.REQUESTS, 1.0));
  }

  /** A cost with the given amounts, in the order given: {@code Cost.of("requests", 1, "tokens", 400)}. */
  public static Cost of(String dimension, double amount, Object... more) {
    if (more.length % 2 != 0) {
      throw new IllegalArgumentException("Cost.of takes dimension/amount pairs");
    }
    Map<String, Double> map = new LinkedHashMap<>();
    map.put(dimension, amount);
    for (int i = 0; i < more.length; i += 2) {
      map.put((String) more[i], ((Number) more[i + 1]).doubleValue());
    }
    return new Cost(map);
  }

  /** The amount for {@code dimension}, zero when absent. */
  public double amount(String dimension) {
    Double value = amounts.get(dimension);
    return value == null ? 0.0 : value;
  }

  /** This cost with {@code dimension} set to {@code amount}. */
  public Cost with(String dimension, double amount) {
    Map<String, Double> map = new LinkedHashMap<>(amounts);
    map.put(dimension, amount);
    return new Cost(map);
  }
}
