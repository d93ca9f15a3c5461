package io.backpressure.eval.workload;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The nine workloads of the paper's Table II and the project's own ones, shipped as resources
 * ({@code /workloads/NAME.yaml}), and loading by name or path.
 */
public final class Workloads {
  /** The shipped workloads, in the order of the paper's Table II. */
  public static final List<String> SHIPPED =
      List.of(
          "uncongested",
          "overload",
          "cross-priority",
          "request-bound",
          "token-bound",
          "mixed-dominant",
          "noisy-estimates",
          "reservation",
          "reservation-capped");

  private Workloads() {}

  /**
   * Loads a shipped workload by name, or any workload file by path. A trace file a workload names
   * is read relative to the workload: beside the YAML file, or among the shipped resources.
   *
   * @throws WorkloadException if the name is neither shipped nor a readable file, or the file (or a
   *     trace file it names) is malformed
   */
  public static Workload load(String nameOrPath) {
    if (SHIPPED.contains(nameOrPath) || isResource(nameOrPath)) {
      return WorkloadReader.parse(
          resource(nameOrPath),
          file -> {
            InputStream in =
                file.contains("..")
                    ? null
                    : Workloads.class.getResourceAsStream("/workloads/" + file);
            if (in == null) {
              throw new java.io.FileNotFoundException("no shipped resource /workloads/" + file);
            }
            return in;
          });
    }
    Path path = Path.of(nameOrPath);
    if (!Files.isRegularFile(path)) {
      throw new WorkloadException(
          "--workload",
          "no shipped workload or file named '"
              + nameOrPath
              + "'; shipped: "
              + String.join(", ", SHIPPED)
              + " (or 'all')");
    }
    try {
      Path dir = path.toAbsolutePath().getParent();
      return WorkloadReader.parse(
          Files.readString(path), file -> Files.newInputStream(dir.resolve(file)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read workload file " + path, e);
    }
  }

  /** Whether {@code name} is a workload shipped as a resource (a plain name, not a path). */
  static boolean isResource(String name) {
    return name.matches("[a-z0-9][a-z0-9-]*")
        && Workloads.class.getResource("/workloads/" + name + ".yaml") != null;
  }

  /** The YAML text of a shipped workload. */
  static String resource(String name) {
    try (InputStream in = Workloads.class.getResourceAsStream("/workloads/" + name + ".yaml")) {
      if (in == null) {
        throw new IllegalStateException(
            "shipped workload resource missing: /workloads/" + name + ".yaml");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
