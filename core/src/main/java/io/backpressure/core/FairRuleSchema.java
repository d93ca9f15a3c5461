package io.backpressure.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The state of {@link FairRule}, declared once: every field it remembers between steps, with what
 * it is kept per and its value before the first step, and the rule's tuning constants. The Redis
 * backend's twin of the rule ({@code fair_rule.lua}) lays its state out from {@link #lua()}, the
 * Lua text of this declaration, and takes its constants from it; the differential test reads both
 * states field by field under the names {@link #key} makes.
 *
 * <p>What a field is kept per ({@link Per}): once, per dimension {@code d}, per class {@code k},
 * per class and dimension, per queue {@code (tenant, k)}, per entry of a dimension's safe window
 * (oldest first), or per entry a dimension's safe window holds for a firm slot (oldest first). What
 * the rule copies from its policy at {@code configure} (caps, weights, horizons) is not state: both
 * backends read it from the policy at every step. {@code rate} and {@code tolerance} are, because a
 * new cap keeps the debt the old one left ({@code CapLayer.configure}).
 *
 * <p>Backend SPI: the one public method gives a backend that runs the rule elsewhere the layout and
 * the constants; the field list and the read-out stay in this package. Immutable.
 */
public final class FairRuleSchema {
  /** What a field is kept per. */
  enum Per {
    GLOBAL,
    DIMENSION,
    CLASS,
    CLASS_DIMENSION,
    QUEUE,
    WINDOW_ENTRY,
    HELD_ENTRY
  }

  /**
   * One remembered field: its Java name (the Lua uses the same), what it is kept per, initially.
   */
  record Field(String name, Per per, double initial) {}

  /** Every field, in the order the Lua lays the flat ones out. */
  static final List<Field> FIELDS =
      List.of(
          // FairRule
          new Field("last", Per.GLOBAL, Double.NEGATIVE_INFINITY),
          new Field("turnUse", Per.DIMENSION, 0),
          new Field("servedRate", Per.CLASS, 0),
          new Field("correction", Per.CLASS_DIMENSION, 0),
          new Field("meanCall", Per.CLASS_DIMENSION, 0),
          new Field("use", Per.CLASS_DIMENSION, 0),
          // CapLayer
          new Field("tat", Per.DIMENSION, Double.NEGATIVE_INFINITY),
          new Field("rate", Per.DIMENSION, 0),
          new Field("tolerance", Per.DIMENSION, 0),
          new Field("lateMean", Per.GLOBAL, 0),
          new Field("lateSpread", Per.GLOBAL, 0),
          new Field("flightMean", Per.GLOBAL, 0),
          new Field("flightSpread", Per.GLOBAL, 0),
          // SlidingWindow, one per dimension
          new Field("sum", Per.DIMENSION, 0),
          new Field("heldSum", Per.DIMENSION, 0),
          new Field("heldExtra", Per.DIMENSION, 0),
          // OrderLayer
          new Field("touches", Per.GLOBAL, 0),
          new Field("classFinish", Per.CLASS, Double.NEGATIVE_INFINITY),
          new Field("weightSum", Per.CLASS, 0),
          new Field("activeQueues", Per.CLASS, 0),
          new Field("knownWeight", Per.CLASS, 0),
          // the size of the resting map
          new Field("restingQueues", Per.CLASS, 0),
          // OrderLayer.Queue; active: 1 in the active set, 0 resting until its idle TTL
          new Field("weight", Per.QUEUE, 0),
          new Field("finish", Per.QUEUE, Double.NEGATIVE_INFINITY),
          new Field("seen", Per.QUEUE, 0),
          new Field("order", Per.QUEUE, 0),
          new Field("active", Per.QUEUE, 1),
          // SlidingWindow.Entry
          new Field("at", Per.WINDOW_ENTRY, 0),
          new Field("amount", Per.WINDOW_ENTRY, 0),
          // SlidingWindow's held entries, the firm slots not yet sent
          new Field("at", Per.HELD_ENTRY, 0),
          new Field("amount", Per.HELD_ENTRY, 0),
          new Field("debit", Per.HELD_ENTRY, 0));

  /** The tuning constants, by the name both rules use. */
  static final Map<String, Double> CONSTANTS = constants();

  private FairRuleSchema() {}

  private static Map<String, Double> constants() {
    Map<String, Double> c = new LinkedHashMap<>();
    c.put("MIN_DEFER_MICROS", (double) FairRule.MIN_DEFER_MICROS);
    c.put("CORRECTION_WEIGHT", FairRule.CORRECTION_WEIGHT);
    c.put("CALL_WEIGHT", FairRule.CALL_WEIGHT);
    c.put("ISOLATION_MICROS", (double) FairRule.ISOLATION_MICROS);
    c.put("EPSILON", NestedBuckets.EPSILON);
    c.put("MEAN_WEIGHT", CapLayer.MEAN_WEIGHT);
    c.put("SPREAD_WEIGHT", CapLayer.SPREAD_WEIGHT);
    c.put("LATE_SPREAD_FACTOR", CapLayer.LATE_SPREAD_FACTOR);
    c.put("FLIGHT_SPREAD_FACTOR", CapLayer.FLIGHT_SPREAD_FACTOR);
    return Map.copyOf(c);
  }

  /**
   * The Lua text that declares this schema: {@code SCHEMA.constants} (name → value) and {@code
   * SCHEMA.fields}, a list of {@code {name, per, initial}} in {@link #FIELDS} order, {@code per}
   * one of {@code 'global'}, {@code 'dimension'}, {@code 'class'}, {@code 'class_dimension'},
   * {@code 'queue'}, {@code 'window_entry'}, {@code 'held_entry'}. Defines one local, {@code
   * SCHEMA}.
   */
  public static String lua() {
    StringBuilder lua = new StringBuilder();
    lua.append("-- FairRule's state schema and constants, written from FairRuleSchema.java.\n");
    lua.append("local SCHEMA = { constants = {");
    new java.util.TreeMap<>(CONSTANTS)
        .forEach(
            (name, value) ->
                lua.append(' ').append(name).append(" = ").append(number(value)).append(','));
    lua.append(" }, fields = {\n");
    for (Field f : FIELDS) {
      lua.append("  { '")
          .append(f.name())
          .append("', '")
          .append(f.per().name().toLowerCase(Locale.ROOT))
          .append("', ")
          .append(number(f.initial()))
          .append(" },\n");
    }
    lua.append("} }\n");
    return lua.toString();
  }

  private static String number(double x) {
    if (x == Double.NEGATIVE_INFINITY) {
      return "-math.huge";
    }
    return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : Double.toString(x);
  }

  /**
   * The name a read-out gives one value: {@code name} for a global field, {@code name[d]}, {@code
   * name[k]}, {@code name[k][d]} (indices from 0), {@code queue[k:tenant].name}, {@code
   * window[d][i].name} ({@code i} from the oldest entry, 0), {@code held[d][i].name} (the same for
   * a held entry).
   */
  static String key(String name, int... at) {
    StringBuilder key = new StringBuilder(name);
    for (int i : at) {
      key.append('[').append(i).append(']');
    }
    return key.toString();
  }

  /** The read-out name of queue field {@code name} of {@code (tenant, k)}. */
  static String queueKey(int k, String tenant, String name) {
    return "queue[" + k + ":" + tenant + "]." + name;
  }

  /** The read-out name of field {@code name} of the {@code i}-th entry of window {@code d}. */
  static String entryKey(int d, int i, String name) {
    return "window[" + d + "][" + i + "]." + name;
  }

  /** The read-out name of field {@code name} of the {@code i}-th held entry of window {@code d}. */
  static String heldKey(int d, int i, String name) {
    return "held[" + d + "][" + i + "]." + name;
  }

  /**
   * The whole state of {@code rule} under the names of {@link #key}, every value a double (a flag:
   * 1 or 0). Every name is that of a field of {@link #FIELDS}.
   *
   * @throws IllegalStateException if the rule reads out a field the schema does not declare
   */
  static Map<String, Double> read(FairRule rule) {
    Map<String, Double> out = new LinkedHashMap<>();
    rule.readState(out);
    for (String key : out.keySet()) {
      String name = key.replaceAll("^(queue\\[[^]]*]|(window|held)\\[\\d+]\\[\\d+])\\.", "");
      String bare = name.replaceAll("\\[.*$", "");
      if (FIELDS.stream().noneMatch(f -> f.name().equals(bare))) {
        throw new IllegalStateException("state field not in the schema: " + key);
      }
    }
    return out;
  }

  /** {@link #read(FairRule)} of the gate's rule, which must be a {@link FairRule}. */
  static Map<String, Double> read(InMemoryGate gate) {
    if (!(gate.rule() instanceof FairRule rule)) {
      throw new IllegalArgumentException("the gate does not decide with FairRule");
    }
    return read(rule);
  }
}
