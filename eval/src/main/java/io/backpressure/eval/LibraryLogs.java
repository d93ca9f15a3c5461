package io.backpressure.eval;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Where the libraries' logs go while {@code demo} and {@code eval} run: by default into files in
 * the output folder ({@value #FILE} for this process, {@value #WORKERS_FILE} for worker processes),
 * so the terminal shows only the commands' own progress and results, and a one-line summary counts
 * the warnings and errors the files hold; with {@code --verbose} everything stays on the terminal.
 *
 * <p>Temporal, Lettuce and the gate log through SLF4J, whose binding here is slf4j-simple
 * (configured by system properties before its first logger is made); gRPC logs through {@code
 * java.util.logging}, which is bridged to SLF4J. Not thread-safe: set up once, at the start of a
 * command.
 */
public final class LibraryLogs {
  static final String FILE = "libraries.log";
  public static final String WORKERS_FILE = "workers.log";
  private static final Pattern WARNING = Pattern.compile("\\] WARN |^WARNING: ");
  private static final Pattern ERROR = Pattern.compile("\\] ERROR |^SEVERE: ");
  private final Path dir;

  private LibraryLogs(Path dir) {
    this.dir = dir;
  }

  /** Logs on the terminal, as the libraries print them. */
  static LibraryLogs verbose() {
    return new LibraryLogs(null);
  }

  /**
   * Sends every library log line to {@value #FILE} in {@code dir} (created if needed), and gRPC's
   * {@code java.util.logging} through SLF4J to the same file.
   *
   * @throws UncheckedIOException if {@code dir} cannot be created
   */
  static LibraryLogs toFolder(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir, e);
    }
    System.setProperty("org.slf4j.simpleLogger.logFile", dir.resolve(FILE).toString());
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
    return new LibraryLogs(dir);
  }

  /** Whether library logs go to files (not the terminal). */
  boolean quiet() {
    return dir != null;
  }

  /** Where worker processes' output goes, or null to leave it on the terminal. */
  Path workersFile() {
    return dir == null ? null : dir.resolve(WORKERS_FILE);
  }

  /**
   * One line for the terminal: how many warnings and errors the log files hold, and where; null
   * with {@code --verbose}, or when no library logged anything.
   */
  String summary() {
    if (dir == null) {
      return null;
    }
    long warnings = 0;
    long errors = 0;
    List<Path> files =
        Stream.of(dir.resolve(FILE), dir.resolve(WORKERS_FILE))
            .filter(Files::isRegularFile)
            .toList();
    if (files.isEmpty()) {
      return null;
    }
    for (Path file : files) {
      try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
        for (String line : (Iterable<String>) lines::iterator) {
          warnings += WARNING.matcher(line).find() ? 1 : 0;
          errors += ERROR.matcher(line).find() ? 1 : 0;
        }
      } catch (IOException | UncheckedIOException e) {
        return "library logs: "
            + file.toAbsolutePath().normalize()
            + " (unreadable: "
            + e.getMessage()
            + ")";
      }
    }
    return String.format(
        Locale.ROOT,
        "library logs: %d warning%s, %d error%s in %s (--verbose prints them here)",
        warnings,
        warnings == 1 ? "" : "s",
        errors,
        errors == 1 ? "" : "s",
        dir.resolve(FILE).toAbsolutePath().normalize());
  }
}
