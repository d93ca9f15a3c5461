package io.backpressure.core;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What one call consumes of each capped dimension: {@code Cost.requests(1).tokens(420)} is one
 * request and 420 tokens; {@code Cost.of("images", 2)} or {@code cost.with("images", 2)} names any
 * other dimension of the policy.
 *
 * <p>Amounts are in the dimension's own units (requests, tokens, …). Each must be a finite number
 * in {@code [0, 1e15]}: anything else is refused when the cost is built, with an {@link
 * IllegalArgumentException} naming the dimension and the range. A dimension the cost does not name
 * counts as zero; a dimension it names that the target's policy does not have is answered {@link
 * Admission.Rejected} by the gate.
 *
 * <p>The two standard dimensions ({@link Dimension#REQUESTS}, {@link Dimension#TOKENS}) are held as
 * two primitive fields, any others in two small parallel arrays, so reading a cost on the admission
 * path boxes nothing and builds no map. Immutable and thread-safe; every {@code with…} returns a
 * new cost.
 */
public final class Cost {
  private static final int REQUESTS_BIT = 1;
  private static final int TOKENS_BIT = 2;
  private static final String[] NO_NAMES = {};
  private static final double[] NO_AMOUNTS = {};
  private static final Cost NONE = new Cost(0, 0, 0, NO_NAMES, NO_AMOUNTS);

  private final double requests;
  private final double tokens;

  /**
   * Which standard dimensions the cost names: bits {@link #REQUESTS_BIT} and {@link #TOKENS_BIT}.
   */
  private final int named;

  /** The other dimensions, in the order they were first named, and their amounts. */
  private final String[] otherNames;

  private final double[] otherAmounts;

  private Cost(
      double requests, double tokens, int named, String[] otherNames, double[] otherAmounts) {
    this.requests = requests;
    this.tokens = tokens;
    this.named = named;
    this.otherNames = otherNames;
    this.otherAmounts = otherAmounts;
  }

  /** A cost that names no dimension: free. Start here to build a cost of tokens alone. */
  public static Cost none() {
    return NONE;
  }

  /**
   * A new cost of {@code requests} requests and nothing else yet; add tokens with {@link
   * #tokens(double)}. Static: it starts a cost, so to set the requests of an existing one use
   * {@code cost.with(Dimension.REQUESTS, n)}.
   */
  public static Cost requests(double requests) {
    return NONE.with(Dimension.REQUESTS, requests);
  }

  /**
   * {@code amount} of the dimension named {@code dimension}, in its units, and nothing else yet.
   */
  public static Cost of(String dimension, double amount) {
    return NONE.with(dimension, amount);
  }

  /**
   * The cost with {@code amounts[d]} of dimension {@code dimensions.get(d)} for every {@code d}: a
   * policy's amounts back as a cost.
   *
   * @throws IllegalArgumentException if the lengths differ, or as {@link #with(String, double)}
   */
  public static Cost of(List<String> dimensions, double[] amounts) {
    if (dimensions.size() != amounts.length) {
      throw new IllegalArgumentException(
          "Cost.of: " + dimensions.size() + " dimensions but " + amounts.length + " amounts");
    }
    double requests = 0;
    double tokens = 0;
    int named = 0;
    for (int d = 0; d < amounts.length; d++) {
      String dimension = dimensions.get(d);
      if (dimension.equals(Dimension.REQUESTS)) {
        requests = checked(dimension, amounts[d]);
        named |= REQUESTS_BIT;
      } else if (dimension.equals(Dimension.TOKENS)) {
        tokens = checked(dimension, amounts[d]);
        named |= TOKENS_BIT;
      } else {
        // A policy with other dimensions: built one dimension at a time.
        Cost cost = NONE;
        for (int e = 0; e < amounts.length; e++) {
          cost = cost.with(dimensions.get(e), amounts[e]);
        }
        return cost;
      }
    }
    // The usual policy (requests, tokens, or both): one object.
    return new Cost(requests, tokens, named, NO_NAMES, NO_AMOUNTS);
  }

  /** This cost with {@code tokens} tokens. */
  public Cost tokens(double tokens) {
    return with(Dimension.TOKENS, tokens);
  }

  /**
   * This cost with {@code dimension} set to {@code amount} (in the dimension's units), replacing
   * any amount it had.
   *
   * @throws IllegalArgumentException if the name is blank or the amount is not a finite number in
   *     {@code [0, 1e15]}
   */
  public Cost with(String dimension, double amount) {
    checked(Objects.requireNonNull(dimension, "dimension"), amount);
    if (dimension.equals(Dimension.REQUESTS)) {
      return new Cost(amount, tokens, named | REQUESTS_BIT, otherNames, otherAmounts);
    }
    if (dimension.equals(Dimension.TOKENS)) {
      return new Cost(requests, amount, named | TOKENS_BIT, otherNames, otherAmounts);
    }
    int i = indexOf(dimension);
    String[] names = otherNames;
    double[] amounts;
    if (i < 0) {
      i = names.length;
      names = Arrays.copyOf(names, i + 1);
      names[i] = dimension;
      amounts = Arrays.copyOf(otherAmounts, i + 1);
    } else {
      amounts = otherAmounts.clone();
    }
    amounts[i] = amount;
    return new Cost(requests, tokens, named, names, amounts);
  }

  /** {@code amount}, once it is known to be a valid amount of {@code dimension}. */
  private static double checked(String dimension, double amount) {
    if (dimension.isBlank()) {
      throw new IllegalArgumentException("a cost's dimension must be a non-empty name");
    }
    if (!(amount >= 0 && amount <= PolicyChecks.MAX_AMOUNT)) {
      throw new IllegalArgumentException(
          "cost."
              + dimension
              + " must be a finite number in [0, "
              + (long) PolicyChecks.MAX_AMOUNT
              + "], got "
              + amount);
    }
    return amount;
  }

  /**
   * Writes the amount of each of {@code dimensions} into {@code into}, in the same order (zero for
   * one this cost does not name), without allocating.
   *
   * @return false when this cost names a dimension that is not among {@code dimensions}
   */
  public boolean amountsIn(List<String> dimensions, double[] into) {
    int found = 0;
    for (int d = 0; d < into.length; d++) {
      String dimension = dimensions.get(d);
      boolean named = names(dimension);
      into[d] = named ? amount(dimension) : 0;
      found += named ? 1 : 0;
    }
    return found == size();
  }

  /** The requests of this cost; zero when it names none. */
  public double requests() {
    return requests;
  }

  /** The tokens of this cost; zero when it names none. */
  public double tokens() {
    return tokens;
  }

  /** The amount of {@code dimension}, in its units; zero when the cost does not name it. */
  public double amount(String dimension) {
    if (dimension.equals(Dimension.REQUESTS)) {
      return requests;
    }
    if (dimension.equals(Dimension.TOKENS)) {
      return tokens;
    }
    int i = indexOf(dimension);
    return i < 0 ? 0 : otherAmounts[i];
  }

  /** Whether this cost names {@code dimension} (with any amount, zero included). */
  public boolean names(String dimension) {
    if (dimension.equals(Dimension.REQUESTS)) {
      return (named & REQUESTS_BIT) != 0;
    }
    if (dimension.equals(Dimension.TOKENS)) {
      return (named & TOKENS_BIT) != 0;
    }
    return indexOf(dimension) >= 0;
  }

  /** How many dimensions this cost names. */
  public int size() {
    return Integer.bitCount(named) + otherNames.length;
  }

  /** The dimensions this cost names: requests, tokens, then the others in the order first named. */
  public Set<String> dimensions() {
    Set<String> out = new LinkedHashSet<>();
    if ((named & REQUESTS_BIT) != 0) {
      out.add(Dimension.REQUESTS);
    }
    if ((named & TOKENS_BIT) != 0) {
      out.add(Dimension.TOKENS);
    }
    Collections.addAll(out, otherNames);
    return Collections.unmodifiableSet(out);
  }

  private int indexOf(String dimension) {
    for (int i = 0; i < otherNames.length; i++) {
      if (otherNames[i].equals(dimension)) {
        return i;
      }
    }
    return -1;
  }

  /** Equal when both name the same dimensions with the same amounts, in whatever order. */
  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof Cost that)
        || named != that.named
        || otherNames.length != that.otherNames.length
        || Double.compare(requests, that.requests) != 0
        || Double.compare(tokens, that.tokens) != 0) {
      return false;
    }
    for (int i = 0; i < otherNames.length; i++) {
      int j = that.indexOf(otherNames[i]);
      if (j < 0 || Double.compare(otherAmounts[i], that.otherAmounts[j]) != 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int hash = 31 * (31 * named + Double.hashCode(requests)) + Double.hashCode(tokens);
    for (int i = 0; i < otherNames.length; i++) {
      hash += otherNames[i].hashCode() ^ Double.hashCode(otherAmounts[i]);
    }
    return hash;
  }

  /** For example {@code Cost[requests=1.0, tokens=420.0]}. */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("Cost[");
    for (String dimension : dimensions()) {
      out.append(out.length() > 5 ? ", " : "")
          .append(dimension)
          .append('=')
          .append(amount(dimension));
    }
    return out.append(']').toString();
  }
}
