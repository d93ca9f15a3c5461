package io.backpressure.eval.sim;

import io.backpressure.core.InMemoryGate;
import io.backpressure.eval.workload.Workload;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * One way of running the same workload (eval/README.md, configurations): how waiting activities
 * reach slots, and what an activity does with its slot. Each is a small model of what the paper
 * describes.
 */
public sealed interface Configuration
    permits NaiveConfiguration,
        TemporalNativeConfiguration,
        GatewayConfiguration,
        GateConfiguration {

  /**
   * The prefix of the rebuilt rule's ablations: {@code bp-fq-no-NAME} is {@code bp-fq} with the
   * mechanism NAME switched off, one per {@link InMemoryGate#fairQueuingMechanisms()}.
   */
  String FAIR_QUEUING_WITHOUT = "bp-fq-no-";

  /** Every configuration's name, in report order. */
  List<String> NAMES =
      Stream.concat(
              Stream.of(
                  "naive",
                  "tn",
                  "gateway",
                  "bp",
                  "bp-static",
                  "bp-no-drf",
                  "bp-no-priority",
                  "bp-no-safe-window",
                  "bp-oracle",
                  "bp-mean-estimate",
                  "bp-429-held",
                  "bp-reserve-tight",
                  "bp-no-concurrency",
                  "bp-no-limits",
                  "bp-fq"),
              InMemoryGate.fairQueuingMechanisms().stream().map(m -> FAIR_QUEUING_WITHOUT + m))
          .toList();

  /** The name used on the command line and as the JSON key. */
  String name();

  /** The task queue in front of the worker slots for one run. */
  default Dispatch dispatch(Workload workload) {
    return Dispatch.fifo();
  }

  /**
   * Fails fast when this configuration cannot run {@code workload}.
   *
   * @throws IllegalArgumentException naming what is missing
   */
  default void validate(Workload workload) {}

  /** The per-run activity logic; may keep per-run state (a gate, proxy counters). */
  ActivityBehaviour behaviour(Workload workload, ActivityContext context);

  /**
   * The configuration named {@code name}.
   *
   * @throws IllegalArgumentException listing the allowed names
   */
  static Configuration named(String name) {
    return switch (name) {
      case "naive" -> new NaiveConfiguration();
      case "tn" -> new TemporalNativeConfiguration();
      case "gateway" -> new GatewayConfiguration();
      case "bp" -> new GateConfiguration(GateConfiguration.Variant.FULL);
      case "bp-static" -> new GateConfiguration(GateConfiguration.Variant.STATIC);
      case "bp-no-drf" -> new GateConfiguration(GateConfiguration.Variant.NO_DRF);
      case "bp-no-priority" -> new GateConfiguration(GateConfiguration.Variant.NO_PRIORITY);
      case "bp-no-safe-window" -> new GateConfiguration(GateConfiguration.Variant.NO_SAFE_WINDOW);
      case "bp-oracle" -> new GateConfiguration(GateConfiguration.Variant.ORACLE);
      case "bp-mean-estimate" -> new GateConfiguration(GateConfiguration.Variant.MEAN_ESTIMATE);
      case "bp-429-held" -> new GateConfiguration(GateConfiguration.Variant.REJECTED_HELD);
      case "bp-reserve-tight" -> new GateConfiguration(GateConfiguration.Variant.TIGHT_RESERVATION);
      case "bp-no-concurrency" -> new GateConfiguration(GateConfiguration.Variant.NO_CONCURRENCY);
      case "bp-no-limits" -> new GateConfiguration(GateConfiguration.Variant.NO_LIMITS);
      case "bp-fq" -> new GateConfiguration(GateConfiguration.Variant.FAIR_QUEUING);
      default -> {
        if (name.startsWith(FAIR_QUEUING_WITHOUT) && NAMES.contains(name)) {
          yield GateConfiguration.fairQueuingWithout(name.substring(FAIR_QUEUING_WITHOUT.length()));
        }
        throw new IllegalArgumentException(
            "unknown configuration '" + name + "'; allowed: " + String.join(", ", NAMES));
      }
    };
  }

  /**
   * The configurations of a comma-separated list, in the order given, each once.
   *
   * @throws IllegalArgumentException on an empty list or an unknown name
   */
  static List<Configuration> parseList(String csv) {
    Set<String> names = new LinkedHashSet<>();
    for (String part : csv.split(",")) {
      if (!part.isBlank()) {
        names.add(part.strip());
      }
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException(
          "--configs names no configuration; allowed: " + String.join(", ", NAMES));
    }
    List<Configuration> list = new ArrayList<>();
    for (String name : names) {
      list.add(named(name));
    }
    return list;
  }
}
