package io.backpressure.client.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The example a README shows, read from the compiled source file it comes from: the lines between
 * {@code // example:start} and {@code // example:end} (or another region's markers), with their
 * common indentation removed. A test runs the example's code and checks that the README shows
 * exactly these lines, so the two cannot drift apart. For tests only.
 */
public final class ReadmeSnippet {

  private ReadmeSnippet() {}

  /** The example lines of {@code source}, relative to the module's directory. */
  public static String of(String source) throws IOException {
    return of(source, "example");
  }

  /**
   * The lines of {@code source} between {@code // name:start} and {@code // name:end} (an example's
   * imports, say), with their common indentation removed.
   */
  public static String of(String source, String name) throws IOException {
    List<String> lines = Files.readAllLines(Path.of(source));
    int start = indexOf(lines, "// " + name + ":start", source) + 1;
    int end = indexOf(lines, "// " + name + ":end", source);
    List<String> body = lines.subList(start, end);
    int indent =
        body.stream()
            .filter(line -> !line.isBlank())
            .mapToInt(line -> line.length() - line.stripLeading().length())
            .min()
            .orElse(0);
    StringBuilder text = new StringBuilder();
    for (String line : body) {
      text.append(line.isBlank() ? "" : line.substring(indent)).append('\n');
    }
    return text.toString();
  }

  /** Asserts that the module's README shows the example lines of {@code source}. */
  public static void assertShown(String source) throws IOException {
    assertThat(readme()).contains(of(source));
  }

  /** Asserts that the module's README shows the lines of {@code source}'s region {@code name}. */
  public static void assertShown(String source, String name) throws IOException {
    assertThat(readme()).contains(of(source, name));
  }

  /** The module's README. */
  public static String readme() throws IOException {
    return Files.readString(Path.of("README.md"));
  }

  private static int indexOf(List<String> lines, String marker, String source) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals(marker)) {
        return i;
      }
    }
    throw new IllegalStateException(source + " has no line '" + marker + "'");
  }
}
